#!/usr/bin/env node
// docs/architecture.md says what every folder under src/ holds and draws the layers; docs/concepts.md
// repeats the layer table. This keeps both true, as part of `npm run lint`:
// - the folder list of docs/architecture.md ("## Folders") is exactly src/'s folders: it fails naming
//   each folder missing from the page and each one the page lists that src/ no longer has;
// - the layer tables of both pages (a table whose first column is `layer`) put the same folders in the
//   same layers as .dependency-cruiser.cjs, which enforces them (errors is layer 0, beneath all).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

// `--root <dir>` checks another copy of the project (test/contract/package/architecture.test.ts).
const at = process.argv.indexOf('--root');
const root = at > 0 ? resolve(process.argv[at + 1]) : resolve(new URL('..', import.meta.url).pathname);
const problems = [];

/** Every folder under src/, as `src/a/b/`. */
function folders(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = join(dir, entry.name);
    out.push(`${relative(root, full)}/`, ...folders(full));
  }
  return out;
}

/** The lines of one `## heading` section of a page. */
function section(lines, heading) {
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const cells = (line) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
const ticked = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

// 1. The folder list.
const page = 'docs/architecture.md';
const lines = readFileSync(join(root, page), 'utf8').split('\n');
const listed = section(lines, 'Folders')
  .filter((l) => /^\|\s*`src\//.test(l))
  .map((l) => ticked(cells(l)[0])[0]);
const actual = folders(join(root, 'src'));
const missing = actual.filter((f) => !listed.includes(f)).sort();
const gone = listed.filter((f) => !actual.includes(f)).sort();
const twice = listed.filter((f, i) => listed.indexOf(f) !== i);
if (missing.length) problems.push(`${page} does not list these folders of src/ (add a row to "## Folders"): ${missing.join(', ')}`);
if (gone.length) problems.push(`${page} lists folders that src/ does not have (remove or rename the rows): ${gone.join(', ')}`);
if (twice.length) problems.push(`${page} lists a folder twice: ${twice.join(', ')}`);

// 2. The layer tables, against the layers dependency-cruiser enforces.
const require = createRequire(import.meta.url);
const rules = require(join(root, '.dependency-cruiser.cjs')).forbidden;
const unpack = (path) => /^\^src\/\((.+)\)\/$/.exec(path)?.[1].split('|') ?? [];
const layerRules = rules
  .filter((r) => /^layer-\d+-imports-upward$/.test(r.name))
  .sort((a, b) => parseInt(a.name.slice(6), 10) - parseInt(b.name.slice(6), 10));
const enforced = new Map([[0, ['errors']]]);
layerRules.forEach((r, i) => enforced.set(i + 1, unpack(r.from.path)));
const top = layerRules.at(-1);
if (top)
  enforced.set(
    layerRules.length + 1,
    unpack(top.to.path).filter((f) => ![...enforced.values()].flat().includes(f)),
  );
if (layerRules.length === 0) problems.push('.dependency-cruiser.cjs has no layer-<n>-imports-upward rules to compare with');

for (const doc of [page, 'docs/concepts.md']) {
  const rows = readFileSync(join(root, doc), 'utf8')
    .split('\n')
    .map((l, i) => ({ l, i }));
  const header = rows.find(({ l }) => /^\|\s*layer\s*\|/.test(l));
  if (!header) {
    problems.push(`${doc} has no layer table (a table whose first column is "layer")`);
    continue;
  }
  const table = new Map();
  for (const { l } of rows.slice(header.i + 2)) {
    if (!l.startsWith('|')) break;
    const [layer, names] = cells(l);
    table.set(Number(layer), ticked(names ?? ''));
  }
  for (const n of new Set([...enforced.keys(), ...table.keys()])) {
    const want = [...(enforced.get(n) ?? [])].sort();
    const have = [...(table.get(n) ?? [])].sort();
    if (want.join() !== have.join())
      problems.push(
        `${doc}: layer ${n} lists ${have.join(', ') || 'nothing'}, .dependency-cruiser.cjs has ${want.join(', ') || 'no such layer'}`,
      );
  }
}

if (problems.length) {
  for (const p of problems) console.error(`check-architecture: ${p}`);
  process.exit(1);
}
console.log(
  `check-architecture: ${page} lists the ${actual.length} folders of src/; its layer table and docs/concepts.md's match .dependency-cruiser.cjs (${enforced.size} layers)`,
);
