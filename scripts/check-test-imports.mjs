#!/usr/bin/env node
// The layout of test/ (docs/testing.md, "Where a test file goes"), checked as part of `npm run lint`:
// - test/contract/ tests the package as its users see it: they import 'svc-auth' and 'svc-auth/<entry>'
//   only, never a path into src/, so they pass or fail on what a user can reach.
// - every other test folder mirrors the src/ folder it tests (test/service/ is src/service/, test/core/policy/
//   is src/core/policy/), except the cross-cutting suites test/cli/ (the svc program), test/fuzz/
//   (properties across layers), test/security/ (attacks across layers) and test/support/ (helpers).
// - outside test/contract/, an import of src/ names a folder's face (its index.ts) or a package entry; a test
//   reaches a file behind a face only in the src folder its own folder mirrors, so moving code inside one
//   folder touches that folder's tests and no others.
// Counts every import of src/ (static, dynamic, `export ... from`, `import('...')` types) and fails on any
// other, naming it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

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

/** Folders of test/ that mirror no src/ folder, and why they may not. */
const CROSS = new Map([
  ['bench', 'the benchmark programs (bench/), which are not in src/'],
  ['cli', 'the svc program end to end'],
  ['fuzz', 'properties across layers'],
  ['security', 'attacks across layers'],
  ['support', 'helpers'],
]);
/**
 * Imports that break the rule today, each with its reason; keep this short. A test of a file's internals
 * belongs in the test folder that mirrors the file's folder.
 */
const KNOWN = new Map([]);

let total = 0;
const problems = [];
const known = [];
for (const file of walk(join(root, 'test'))) {
  const dir = relative(join(root, 'test'), dirname(file));
  const top = dir.split('/')[0];
  const kind = top === 'contract' ? 'contract' : CROSS.has(top) ? 'cross' : 'mirror';
  if (kind === 'mirror' && !(existsSync(join(src, dir)) && statSync(join(src, dir)).isDirectory()))
    problems.push(
      `${relative(root, file)}: test/${dir}/ mirrors no src/${dir}/ (a test goes in the folder named for the src folder it tests, in test/contract/ when it uses the package as its users do, or in ${[...CROSS.keys()].map((c) => `test/${c}/`).join(', ')})`,
    );
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
    const where = `${relative(root, file)}:${sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1}: '${spec}' (src/${rel})`;
    if (kind === 'contract') {
      problems.push(`${where}: a contract test imports 'svc-auth' or 'svc-auth/<entry>', never src/`);
      continue;
    }
    if (rel === 'index.ts' || rel.startsWith('entries/') || rel.endsWith('/index.ts')) continue;
    if (kind === 'mirror' && rel.startsWith(`${dir}/`)) continue;
    const key = `${relative(root, file)} -> src/${rel}`;
    if (KNOWN.has(key)) {
      known.push(`${key}: ${KNOWN.get(key)}`);
      continue;
    }
    problems.push(`${where}: names a file behind src/${dirname(rel)}/index.ts; import the face, or test it from test/${dirname(rel)}/`);
  }
}
if (problems.length > 0) {
  process.stderr.write(
    `check-test-imports: ${problems.length} problem(s) with the layout of test/ (docs/testing.md):\n  ${problems.join('\n  ')}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `check-test-imports: ${total} test imports of src follow the layout of test/ (contract: entries only; elsewhere: faces, or files of the mirrored folder)\n`,
);
if (known.length > 0) process.stdout.write(`  known exceptions:\n    ${known.join('\n    ')}\n`);
