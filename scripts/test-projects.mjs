#!/usr/bin/env node
// Which vitest project runs each test file (vitest.config.ts reads `testProjects`), decided by what the file
// does, not by where it sits: a file that drives chromium or mcp-remote is `browser`; one that uses
// PostgreSQL, starts a process or a worker, or starts (or calls) an HTTP server is `integration`; every other
// `*.test.ts` file is `unit`, in-process and quick. A file counts as doing what the test/ helpers it imports
// do (followed transitively), so a test that calls `startOAuth()` from test/oauth/support.ts is integration
// even though the file itself never says `listen`. Each file lands in exactly one project by construction.
//
// Run as a script (part of `npm run lint`) it also fails when a file under test/ declares tests (calls
// a top-level `describe(`/`it(`/`test(` from vitest) without being named `*.test.ts`, since no project would run it.
// `node scripts/test-projects.mjs --list` prints every file with its project and the reason.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What moves a file out of `unit`, in order: the first project whose sign matches wins. */
const SIGNS = [
  ['browser', /support\/chromium|playwright|mcp-remote/, 'drives chromium or mcp-remote'],
  ['integration', /support\/postgres|\bDATABASE_URL|from 'pg'/, 'uses PostgreSQL'],
  ['integration', /node:child_process|node:worker_threads|new Worker\(/, 'starts a process or a worker'],
  ['integration', /\.listen\(|createServer\(|@hono\/node-server|node:net/, 'starts a server'],
  ['integration', /\bfetch\((?:`|'|")?(?:http|\$\{)|\bfetch\(url/, 'makes an HTTP request'],
];

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (/\.[cm]?ts$/.test(name)) out.push(full);
  }
  return out;
}

/** The file and every test/ helper it imports, transitively. */
function closure(file, root, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = resolve(dirname(file), m[1]).replace(/\.js$/, '');
    const hit = [`${base}.ts`, join(base, 'index.ts'), base].find(
      (c) => c.startsWith(join(root, 'test') + '/') && existsSync(c) && statSync(c).isFile(),
    );
    if (hit) closure(hit, root, seen);
  }
  return seen;
}

/**
 * The test files of each project, as paths relative to `root` (each file in exactly one), with the reason
 * each non-unit file is where it is.
 */
export function testProjects(root = ROOT) {
  const projects = { unit: [], integration: [], browser: [] };
  const why = new Map();
  const files = walk(join(root, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  for (const file of files) {
    const texts = [...closure(file, root)].map((f) => [relative(root, f), readFileSync(f, 'utf8')]);
    let project = 'unit';
    for (const [name, sign, reason] of SIGNS) {
      const found = texts.find(([, t]) => sign.test(t));
      if (found) {
        project = name;
        why.set(relative(root, file), `${reason} (${found[0]})`);
        break;
      }
    }
    projects[project].push(relative(root, file));
  }
  return { ...projects, why };
}

/** Files under test/ that declare tests at their top level but that no project runs (not named `*.test.ts`). */
function unrun(root) {
  return walk(join(root, 'test'))
    .filter((f) => !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .filter((f) => {
      const t = readFileSync(f, 'utf8');
      return /from 'vitest'/.test(t) && /^(?:describe|it|test)(?:\.\w+)*\(/m.test(t);
    })
    .map((f) => relative(root, f));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const p = testProjects();
  if (process.argv.includes('--list'))
    for (const name of ['unit', 'integration', 'browser'])
      for (const f of p[name]) process.stdout.write(`${name.padEnd(12)}${f}${p.why.has(f) ? `  ${p.why.get(f)}` : ''}\n`);
  const lost = unrun(ROOT);
  if (lost.length > 0) {
    process.stderr.write(
      `test-projects: these files declare tests but are not named *.test.ts, so no project runs them:\n  ${lost.join('\n  ')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `test-projects: ${p.unit.length} unit, ${p.integration.length} integration, ${p.browser.length} browser test files; each in exactly one project\n`,
  );
}
