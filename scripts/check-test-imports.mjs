#!/usr/bin/env node
// Tests reach the library as its users and its own layers do: through a folder's index.ts (its face)
// or a package entry ('svc-auth', 'svc-auth/<subpath>'), not through the file that happens to hold a
// name today, so that moving code inside a folder never touches a test. Counts every import of src/
// in test/ (static, dynamic, `export ... from`, `import('...')` types) and fails when fewer than 90%
// go through a face or an entry, printing those that do not. Part of `npm run lint`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MIN = 0.9;
const root = resolve(new URL('..', import.meta.url).pathname);
const src = join(root, 'src');

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (/\.(ts|mts|cts)$/.test(name)) out.push(full);
  }
  return out;
}

/** The src file a relative specifier names, or undefined when it names none. */
function target(from, spec) {
  const abs = resolve(dirname(from), spec);
  for (const f of [abs, `${abs}.ts`, join(abs, 'index.ts')]) if (f.startsWith(`${src}/`) && existsSync(f) && statSync(f).isFile()) return f;
  return undefined;
}

function specifiers(sf) {
  const out = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      out.push(node.moduleSpecifier);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      out.push(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      out.push(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

let total = 0;
const offenders = [];
for (const file of walk(join(root, 'test'))) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  for (const lit of specifiers(sf)) {
    const spec = lit.text;
    if (spec === 'svc-auth' || spec.startsWith('svc-auth/')) {
      total++;
      continue;
    }
    if (!spec.startsWith('.')) continue;
    const t = target(file, spec);
    if (t === undefined) continue;
    total++;
    const rel = relative(src, t);
    if (rel === 'index.ts' || rel.startsWith('entries/') || rel.endsWith('/index.ts')) continue;
    const { line } = sf.getLineAndCharacterOfPosition(lit.getStart(sf));
    offenders.push(`${relative(root, file)}:${line + 1}: '${spec}' (src/${rel})`);
  }
}
const through = total - offenders.length;
const ratio = total === 0 ? 1 : through / total;
const summary = `check-test-imports: ${through} of ${total} test imports of src go through a folder's index.ts or a package entry (${(ratio * 100).toFixed(1)}%, at least ${MIN * 100}% required)`;
if (ratio < MIN) {
  process.stderr.write(`${summary}\nimports that name a file:\n  ${offenders.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`${summary}\n`);
if (offenders.length > 0) process.stdout.write(`  still naming a file:\n    ${offenders.join('\n    ')}\n`);
