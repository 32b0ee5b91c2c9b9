#!/usr/bin/env node
// Packs the package as a user receives it, installs the tarball into an empty project,
// and imports it from ESM and CJS (and runs `svc` from node_modules/.bin once it exists).
// Also runs publint over the package. Exits non-zero on any failure.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// What must be importable from the tarball: the root's names and each subpath's (was package.json
// checkExports/checkSubpaths; a package.json carries no custom fields).
const ROOT_EXPORTS = [
  'createAuth',
  'authorize',
  'createGrant',
  'normalizeScopes',
  'parseScopeFlags',
  'parseScopesJson',
  'formatScopeFlags',
  'generateKeyRing',
  'importKeyRing',
  'MemoryTokenStore',
  'TOKEN_PATTERN',
  'AuthenticationError',
  'errorResponse',
  'sendError',
  'compileLayer',
  'requireAuth',
  'withAuth',
  'decisionError',
  'canEverHold',
  'findTokens',
  'principalOf',
  'EXPIRATION_HEADER',
  'redactTokens',
  'reportDenied',
];
const SUBPATH_EXPORTS = {
  postgres: ['PostgresTokenStore'],
  testing: ['tokenStoreConformance'],
  express: ['svcAuth', 'requirePermission', 'errorHandler'],
  hono: ['svcAuth', 'requirePermission', 'onError'],
  fastify: ['svcAuth', 'requirePermission', 'errorHandler'],
  mcp: [
    'mcpTokenVerifier',
    'mcpPrincipal',
    'guardTool',
    'canUseTool',
    'protectedResourceMetadata',
    'resourceMetadataUrl',
    'mcpNodeHandlers',
    'mcpFetchHandlers',
  ],
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
  const probe = (names) =>
    `for (const n of ${JSON.stringify(names)}) if (m[n] === undefined) { console.error('missing export ' + n); process.exit(1); }`;
  writeFileSync(
    join(app, 'esm.mjs'),
    `import * as m from 'svc-auth';\n${probe(names)}\nconsole.log('esm ok', Object.keys(m).length, 'exports');\n`,
  );
  writeFileSync(
    join(app, 'cjs.cjs'),
    `const m = require('svc-auth');\n${probe(names)}\nconsole.log('cjs ok', Object.keys(m).length, 'exports');\n`,
  );
  console.log(run('node', ['esm.mjs'], app).trim());
  console.log(run('node', ['cjs.cjs'], app).trim());
  // Node 20.0-20.18 cannot require() an ES module; this flag makes Node 20.20 refuse the same way.
  // `engines` admits those versions, so every CommonJS entry must load without require(esm).
  const oldNode = ['--no-experimental-require-module'];
  console.log(run('node', [...oldNode, 'cjs.cjs'], app).trim(), '(without require(esm), as Node < 20.19)');
  // `svc serve` mounts /mcp with the MCP SDK bundled into the CLI: it must answer before the optional peer is installed.
  if (existsSync(join(app, 'node_modules', '@modelcontextprotocol')))
    throw new Error('the optional MCP SDK peer was installed with svc-auth');
  console.log(await checkServeMcp(join(app, 'node_modules', '.bin', 'svc'), work));
  // Optional peers a user of a subpath installs themselves (svc-auth/testing needs vitest, svc-auth/mcp the MCP SDK).
  const dev = (name) => `${name}@${pkg.devDependencies[name]}`;
  const peers = {
    testing: [dev('vitest')],
    express: [dev('express'), dev('@types/express')],
    hono: [dev('hono')],
    fastify: [dev('fastify')],
    mcp: [dev('@modelcontextprotocol/sdk')],
  };
  for (const [sub, subNames] of Object.entries(SUBPATH_EXPORTS)) {
    if (peers[sub]) run('npm', ['install', '--no-audit', '--no-fund', '--silent', ...peers[sub]], app);
    writeFileSync(
      join(app, 'sub.mjs'),
      `import * as m from 'svc-auth/${sub}';\n${probe(subNames)}\nconsole.log('esm svc-auth/${sub} ok');\n`,
    );
    writeFileSync(
      join(app, 'sub.cjs'),
      `const m = require('svc-auth/${sub}');\n${probe(subNames)}\nconsole.log('cjs svc-auth/${sub} ok');\n`,
    );
    console.log(run('node', ['sub.mjs'], app).trim());
    if (pkg.exports[`./${sub}`].require) {
      console.log(run('node', ['sub.cjs'], app).trim());
      console.log(run('node', [...oldNode, 'sub.cjs'], app).trim(), '(without require(esm))');
    }
  }

  // A CommonJS TypeScript consumer (module node16, skipLibCheck false) type-checks against the
  // .d.cts declarations of every CommonJS entry, the framework types included.
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', dev('typescript'), dev('@types/node'), dev('pg'), dev('@types/pg')], app);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(app, 'consumer.ts'),
    [
      "import { createAuth, generateKeyRing, requireAuth, findTokens, type Permission } from 'svc-auth';",
      "import { PostgresTokenStore } from 'svc-auth/postgres';",
      "import * as forExpress from 'svc-auth/express';",
      "import * as forHono from 'svc-auth/hono';",
      "import * as forFastify from 'svc-auth/fastify';",
      'export async function main(): Promise<number> {',
      "  const auth = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });",
      "  const read: Permission = 'repo:read';",
      "  const guard = requireAuth(auth, { permission: read, resource: () => 'acme/web' });",
      '  const mw = [forExpress.svcAuth(auth), forHono.svcAuth(auth), forFastify.svcAuth, forExpress.requirePermission(read, { resource: (req) => String(req.params.org) })];',
      '  return [guard, mw, findTokens(""), PostgresTokenStore].length;',
      '}',
      '',
    ].join('\n'),
  );
  run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], app);
  console.log('a CommonJS TypeScript consumer (module node16, skipLibCheck false) type-checks');
  // What the README promises a store author: the conformance suite runs under their vitest.
  writeFileSync(
    join(app, 'memory.test.mjs'),
    "import { MemoryTokenStore } from 'svc-auth';\nimport { tokenStoreConformance } from 'svc-auth/testing';\ntokenStoreConformance('MemoryTokenStore (packed)', () => new MemoryTokenStore());\n",
  );
  const conf = run(join(app, 'node_modules', '.bin', 'vitest'), ['run', '--reporter=dot'], app);
  if (!/Tests\s+\d+ passed/.test(conf.replace(/\x1b\[[0-9;]*m/g, '')))
    throw new Error(`conformance suite from the tarball did not pass:\n${conf}`);
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

/** Start the packed `svc serve`, expect /mcp to ask for a bearer token with its metadata URL, stop it. */
async function checkServeMcp(bin, dir) {
  const child = spawn(bin, ['serve', '--port', '0'], {
    env: { ...process.env, SVC_HOME: join(dir, 'svc-home') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise((done, fail) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error('svc serve did not print its URL in 20 s')), 20_000);
      child.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+)\n/.exec(out);
        if (m) {
          clearTimeout(timer);
          done(m[1]);
        }
      });
      child.on('exit', (code) => fail(new Error(`svc serve exited ${code}`)));
    });
    const r = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const challenge = r.headers.get('www-authenticate') ?? '';
    if (r.status !== 401 || !challenge.includes(`resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`)) {
      throw new Error(`svc serve /mcp answered ${r.status} ${challenge}`);
    }
    return 'svc serve mounts /mcp without the MCP SDK installed';
  } finally {
    child.kill('SIGTERM');
  }
}
