#!/usr/bin/env node
// Every adapter (src/adapters/<name>/, all of its files) is a thin translation over the adapter kit of
// the HTTP layer, so it imports a handful of names from src/http, not the layer's insides: at most 5
// distinct names (types included, re-exports included; a namespace import or `export *` counts as too
// many). dependency-cruiser checks where imports point, not how many names they take, hence this
// script. The layer-8 peers that answer HTTP themselves (src/mcp, src/leaks, src/oauth: each folder
// counted whole) are held to the edge kit the same way, with a cap of their own: an endpoint takes the
// answer writer, the body reader and the onError guard, not the layer's insides. Part of `npm run
// lint`; prints the count of each adapter and peer.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MAX = 5;
const PEER_MAX = 13;
const PEERS = ['mcp', 'leaks', 'oauth'];
const root = resolve(new URL('..', import.meta.url).pathname);
const adapters = join(root, 'src', 'adapters');
const http = join(root, 'src', 'http');

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (/\.(ts|mts|cts)$/.test(name)) out.push(full);
  }
  return out;
}

/** Whether a relative specifier written in `from` names src/http or a file in it. */
function intoHttp(from, spec) {
  if (!spec.startsWith('.')) return false;
  const abs = resolve(dirname(from), spec);
  return abs === http || abs.startsWith(`${http}/`);
}

/** The names a file takes from src/http: `*` for a namespace import, `export *` or a dynamic import. */
function namesFromHttp(file) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = [];
  const visit = (node) => {
    const spec = node.moduleSpecifier ?? (ts.isImportTypeNode(node) ? node.argument?.literal : undefined);
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && spec && ts.isStringLiteral(spec) && intoHttp(file, spec.text)) {
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        if (clause?.name) names.push('default');
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        else if (bindings) for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
      } else if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) names.push('*');
      else for (const el of node.exportClause.elements) names.push((el.propertyName ?? el.name).text);
    } else if (ts.isImportTypeNode(node) && spec && ts.isStringLiteral(spec) && intoHttp(file, spec.text)) {
      names.push(node.qualifier ? node.qualifier.getText(sf).split('.')[0] : '*');
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0]) &&
      intoHttp(file, node.arguments[0].text)
    ) {
      names.push('*');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

const failures = [];
if (!existsSync(adapters)) failures.push('src/adapters/ is missing');
for (const name of existsSync(adapters) ? readdirSync(adapters).sort() : []) {
  const dir = join(adapters, name);
  if (!statSync(dir).isDirectory()) continue;
  const names = new Set(walk(dir).flatMap(namesFromHttp));
  const list = [...names].sort();
  const line = `${relative(root, dir)}: ${names.has('*') ? 'a whole-module import' : `${names.size} names`} from src/http (${list.join(', ') || 'none'})`;
  if (names.has('*') || names.size > MAX) failures.push(line);
  else console.log(`check-adapter-imports: ${line}`);
}
for (const name of PEERS) {
  const dir = join(root, 'src', name);
  if (!existsSync(dir)) {
    failures.push(`src/${name}/ is missing (a layer-8 peer this script holds to the edge kit)`);
    continue;
  }
  const names = new Set(walk(dir).flatMap(namesFromHttp));
  const list = [...names].sort();
  const line = `${relative(root, dir)}: ${names.has('*') ? 'a whole-module import' : `${names.size} names`} from src/http (${list.join(', ') || 'none'})`;
  if (names.has('*') || names.size > PEER_MAX) failures.push(`${line} (a layer-8 peer: at most ${PEER_MAX})`);
  else console.log(`check-adapter-imports: ${line}`);
}
if (failures.length > 0) {
  console.error(
    `check-adapter-imports: an adapter imports at most ${MAX} names from src/http (build it on the adapter kit, src/http/kit.ts):\n  ${failures.join('\n  ')}`,
  );
  process.exit(1);
}
