#!/usr/bin/env node
// Packs the package as a user receives it, installs the tarball into an empty project,
// and imports it from ESM and CJS (and runs `svc` from node_modules/.bin once it exists).
// Also runs publint over the package. Exits non-zero on any failure.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// What must be importable from the tarball: the root's names and each subpath's (was package.json
// checkExports/checkSubpaths; a package.json carries no custom fields).
const ROOT_EXPORTS = [
  'createAuth', 'authorize', 'createGrant', 'normalizeScopes', 'parseScopeFlags', 'parseScopesJson', 'formatScopeFlags',
  'generateKeyRing', 'importKeyRing', 'MemoryTokenStore', 'TOKEN_PATTERN', 'AuthenticationError', 'errorResponse', 'sendError',
  'compileLayer', 'requireAuth', 'withAuth', 'decisionError',
];
const SUBPATH_EXPORTS = {
  postgres: ['PostgresTokenStore'],
  testing: ['tokenStoreConformance'],
};

const root = resolve(new URL('..', import.meta.url).pathname);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

console.log('publint:');
console.log(run('npx', ['--no-install', 'publint', '--strict'], root));

const work = mkdtempSync(join(tmpdir(), 'svc-auth-pack-'));
try {
  const out = run('npm', ['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop();
  const tarball = join(work, out);
  const listing = run('tar', ['-tzf', tarball], work).split('\n').filter(Boolean);
  const bad = listing.filter((f) => /^package\/(src|test|bench|node_modules|coverage)\//.test(f));
  if (bad.length) throw new Error(`tarball holds files users do not need: ${bad.slice(0, 5).join(', ')}`);
  console.log(`packed ${out}: ${listing.length} files`);

  const app = join(work, 'app');
  run('mkdir', ['-p', app], work);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], app);

  const names = ['PERMISSIONS', 'ROLES', 'SvcAuthError', 'ValidationError', ...ROOT_EXPORTS];
  const probe = (names) => `for (const n of ${JSON.stringify(names)}) if (m[n] === undefined) { console.error('missing export ' + n); process.exit(1); }`;
  writeFileSync(join(app, 'esm.mjs'), `import * as m from 'svc-auth';\n${probe(names)}\nconsole.log('esm ok', Object.keys(m).length, 'exports');\n`);
  writeFileSync(join(app, 'cjs.cjs'), `const m = require('svc-auth');\n${probe(names)}\nconsole.log('cjs ok', Object.keys(m).length, 'exports');\n`);
  console.log(run('node', ['esm.mjs'], app).trim());
  console.log(run('node', ['cjs.cjs'], app).trim());
  // Optional peers a user of a subpath installs themselves (svc-auth/testing needs vitest).
  const peers = { testing: [`vitest@${pkg.devDependencies.vitest}`] };
  for (const [sub, subNames] of Object.entries(SUBPATH_EXPORTS)) {
    if (peers[sub]) run('npm', ['install', '--no-audit', '--no-fund', '--silent', ...peers[sub]], app);
    writeFileSync(join(app, 'sub.mjs'), `import * as m from 'svc-auth/${sub}';\n${probe(subNames)}\nconsole.log('esm svc-auth/${sub} ok');\n`);
    writeFileSync(join(app, 'sub.cjs'), `const m = require('svc-auth/${sub}');\n${probe(subNames)}\nconsole.log('cjs svc-auth/${sub} ok');\n`);
    console.log(run('node', ['sub.mjs'], app).trim());
    if (pkg.exports[`./${sub}`].require) console.log(run('node', ['sub.cjs'], app).trim());
  }
  // What the README promises a store author: the conformance suite runs under their vitest.
  writeFileSync(
    join(app, 'memory.test.mjs'),
    "import { MemoryTokenStore } from 'svc-auth';\nimport { tokenStoreConformance } from 'svc-auth/testing';\ntokenStoreConformance('MemoryTokenStore (packed)', () => new MemoryTokenStore());\n",
  );
  const conf = run(join(app, 'node_modules', '.bin', 'vitest'), ['run', '--reporter=dot'], app);
  if (!/Tests\s+\d+ passed/.test(conf.replace(/\x1b\[[0-9;]*m/g, ''))) throw new Error(`conformance suite from the tarball did not pass:\n${conf}`);
  console.log('svc-auth/testing conformance suite passes from the tarball');

  const bin = join(app, 'node_modules', '.bin', 'svc');
  if (pkg.bin?.svc) {
    if (!existsSync(bin)) throw new Error('node_modules/.bin/svc is missing');
    console.log('svc --version:', run(bin, ['--version'], app).trim());
  }
  console.log('package check passed');
} finally {
  rmSync(work, { recursive: true, force: true });
}
