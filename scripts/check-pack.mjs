#!/usr/bin/env node
// Packs the package as a user receives it, installs the tarball into an empty project,
// and imports it from ESM and CJS (and runs `svc` from node_modules/.bin once it exists).
// Type-checks consumer projects against its declarations with the pinned TypeScript and the
// newest one on npm. Also runs publint over the package. Exits non-zero on any failure.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

// What must be importable from the tarball: every name src/index.ts exports (ROOT_API, read from the source so
// that the list cannot drift), and each subpath's names.
const SUBPATH_EXPORTS = {
  policy: [
    'PERMISSIONS',
    'ROLES',
    'ROLE_TABLE',
    'isPermission',
    'isRoleName',
    'parseScopeFlags',
    'parseScopesJson',
    'normalizeScopes',
    'formatScopeFlags',
    'isFlagExpressible',
    'checkPattern',
    'parseResource',
    'isValidThingName',
    'LIMITS',
    'createGrant',
    'compileLayer',
    'authorize',
    'canEverHold',
    'Grant',
    'CompiledLayer',
  ],
  scanning: ['TOKEN_PATTERN', 'TOKEN_PREFIX', 'findTokens', 'redactTokens'],
  stores: ['MemoryTokenStore', 'MemoryMembershipStore', 'FileTokenStore', 'FileMembershipStore', 'MAX_USED_FROM'],
  leaks: ['credentialRevocationHandler', 'githubSecretScanningHandler', 'GITHUB_SECRET_SCANNING_KEYS_URL'],
  postgres: ['PostgresTokenStore', 'PostgresMembershipStore', 'PostgresOAuthStorage'],
  testing: ['tokenStoreConformance', 'membershipStoreConformance'],
  express: ['svcAuth', 'requirePermission', 'errorHandler'],
  hono: ['svcAuth', 'requirePermission', 'onError'],
  fastify: ['svcAuth', 'requirePermission', 'errorHandler'],
  mcp: ['mcpTokenVerifier', 'mcpPrincipal', 'guardTool', 'canUseTool', 'protectedResourceMetadata', 'resourceMetadataUrl', 'mcpHandlers'],
  oauth: ['createAuthorizationServer', 'MemoryOAuthStorage'],
};

const root = resolve(new URL('..', import.meta.url).pathname);
const ROOT_API = rootNamesInSource();
const ROOT_EXPORTS = ROOT_API.values;
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

  const names = ROOT_EXPORTS;
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
  // Optional peers a user of a subpath installs themselves (svc-auth/testing needs vitest, svc-auth/mcp the MCP SDK,
  // svc-auth/oauth oidc-provider).
  const dev = (name) => `${name}@${pkg.devDependencies[name]}`;
  const peers = {
    testing: [dev('vitest')],
    express: [dev('express'), dev('@types/express')],
    hono: [dev('hono')],
    fastify: [dev('fastify')],
    mcp: [dev('@modelcontextprotocol/sdk')],
    oauth: [dev('oidc-provider')],
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
    if (sub === 'policy' || sub === 'scanning') {
      // A moved name is the same object at the root and in its subpath (instanceof and identity hold).
      const same = `for (const n of ${JSON.stringify(subNames)}) if (n in root && root[n] !== m[n]) { console.error(n + ' differs'); process.exit(1); }`;
      writeFileSync(
        join(app, 'same.mjs'),
        `import * as root from 'svc-auth';\nimport * as m from 'svc-auth/${sub}';\n${same}\nconsole.log('esm svc-auth/${sub} names are the root\\'s own');\n`,
      );
      writeFileSync(
        join(app, 'same.cjs'),
        `const root = require('svc-auth');\nconst m = require('svc-auth/${sub}');\n${same}\nconsole.log('cjs svc-auth/${sub} names are the root\\'s own');\n`,
      );
      console.log(run('node', ['same.mjs'], app).trim());
      console.log(run('node', ['same.cjs'], app).trim());
    }
    if (sub === 'testing') {
      // ESM-only on purpose: require() must fail with a message that says so and shows the import.
      writeFileSync(
        join(app, 'sub.cjs'),
        "try { require('svc-auth/testing'); process.exit(1); } catch (e) { if (e.code !== 'ERR_REQUIRE_ESM' || !/ESM-only/.test(e.message)) throw e; }\nconsole.log('cjs svc-auth/testing says it is ESM-only');\n",
      );
      console.log(run('node', ['sub.cjs'], app).trim());
    } else if (pkg.exports[`./${sub}`].require) {
      console.log(run('node', ['sub.cjs'], app).trim());
      console.log(run('node', [...oldNode, 'sub.cjs'], app).trim(), '(without require(esm))');
    }
  }

  // TypeScript consumers of the packed declarations, with the pinned compiler and with the newest
  // one on npm (installed in a folder of its own: the pinned devDependency stays as it is).
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', dev('typescript'), dev('@types/node'), dev('pg'), dev('@types/pg')], app);
  const latest = join(work, 'ts-latest');
  run('mkdir', ['-p', latest], work);
  writeFileSync(join(latest, 'package.json'), JSON.stringify({ name: 'ts-latest', version: '1.0.0', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--silent', 'typescript@latest'], latest);
  checkTypes(app, [
    ['pinned', join(app, 'node_modules', '.bin', 'tsc')],
    ['latest', join(latest, 'node_modules', '.bin', 'tsc')],
  ]);
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

/**
 * Type-check consumer projects against the installed tarball with each compiler: a CommonJS one
 * (.d.cts of every entry), an ESM one asserting the adapters' types as docs/frameworks.md presents
 * them, one that switches `optional: true` on, and a Hono one without @types/node (it compiles with
 * skipLibCheck, and not without: docs/frameworks.md says so; update it if this changes).
 */
function checkTypes(app, compilers) {
  const strict = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false };
  const esm = { ...strict, module: 'nodenext', moduleResolution: 'nodenext', types: ['node'] };
  const equal = [
    'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
    'const is = <T extends true>(_: T): void => undefined;',
  ];
  const projects = [
    {
      name: 'a CommonJS consumer (module node16)',
      dir: 'cjs',
      type: 'commonjs',
      options: { ...strict, module: 'node16', moduleResolution: 'node16', types: ['node'] },
      code: [
        "import { createAuth, generateKeyRing, requireAuth, type Permission } from 'svc-auth';",
        "import { findTokens } from 'svc-auth/scanning';",
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
      ],
    },
    {
      name: 'an ESM consumer of the adapters (principal typed Principal, Fastify params inferred)',
      dir: 'esm',
      type: 'module',
      options: esm,
      code: [
        "import express from 'express';",
        "import Fastify from 'fastify';",
        "import { Hono } from 'hono';",
        "import { createAuth, generateKeyRing, principalOf, withAuth, type Principal } from 'svc-auth';",
        "import * as forExpress from 'svc-auth/express';",
        "import * as forFastify from 'svc-auth/fastify';",
        "import * as forHono from 'svc-auth/hono';",
        ...equal,
        'export async function main(): Promise<unknown[]> {',
        "  const auth = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });",
        '  const e = express();',
        '  e.use(forExpress.svcAuth(auth));',
        "  e.get('/:org/:repo', forExpress.requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }), (req, res) => {",
        '    is<Equal<typeof req.principal, Principal>>(true);',
        '    res.json({ user: req.principal.userId });',
        '  });',
        '  const f = Fastify();',
        '  await f.register(forFastify.svcAuth, { auth });',
        '  f.setErrorHandler(forFastify.errorHandler());',
        "  f.get<{ Params: { org: string; repo: string } }>('/:org/:repo', {",
        "    preHandler: forFastify.requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),",
        '  }, async (req) => {',
        '    is<Equal<typeof req.principal, Principal>>(true);',
        '    return { user: req.principal.userId, raw: principalOf(req.raw).userId };',
        '  });',
        '  const h = new Hono<forHono.PrincipalEnv>();',
        '  h.use(forHono.svcAuth(auth));',
        "  h.get('/:org', forHono.requirePermission('org:read', { resource: (c) => `${c.req.param('org')}` }), (c) => {",
        '    is<Equal<typeof c.var.principal, Principal>>(true);',
        '    return c.json({ user: c.var.principal.userId });',
        '  });',
        '  h.onError(forHono.onError());',
        '  return [e, f, h, withAuth(auth, async (_req, p) => Response.json({ user: p.userId }))];',
        '}',
      ],
    },
    {
      name: 'an ESM consumer that declares optional: true (principal typed Principal | null)',
      dir: 'optional',
      type: 'module',
      options: esm,
      code: [
        "import express from 'express';",
        "import Fastify from 'fastify';",
        "import type { Auth, Principal } from 'svc-auth';",
        "import * as forExpress from 'svc-auth/express';",
        "import * as forFastify from 'svc-auth/fastify';",
        "declare module 'svc-auth/express' { interface SvcAuthTypes { optional: true } }",
        "declare module 'svc-auth/fastify' { interface SvcAuthTypes { optional: true } }",
        ...equal,
        'export async function main(auth: Auth): Promise<unknown[]> {',
        '  const e = express();',
        '  e.use(forExpress.svcAuth(auth, { optional: true }));',
        "  e.get('/', (req, res) => {",
        '    is<Equal<typeof req.principal, Principal | null>>(true);',
        '    res.json({ user: req.principal?.userId ?? null });',
        '  });',
        '  const f = Fastify();',
        '  await f.register(forFastify.svcAuth, { auth, optional: true });',
        "  f.get('/', async (req) => {",
        '    is<Equal<typeof req.principal, Principal | null>>(true);',
        '    return { user: req.principal?.userId ?? null };',
        '  });',
        '  return [e, f];',
        '}',
      ],
    },
    {
      name: 'a Hono consumer without @types/node (skipLibCheck: true, lib DOM)',
      dir: 'hono',
      type: 'module',
      options: { ...strict, module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [], skipLibCheck: true },
      code: [
        "import { Hono } from 'hono';",
        "import { createAuth, generateKeyRing, withAuth, type Principal } from 'svc-auth';",
        "import { onError, requirePermission, svcAuth, type PrincipalEnv } from 'svc-auth/hono';",
        ...equal,
        'export async function main(): Promise<unknown[]> {',
        "  const auth = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });",
        '  const app = new Hono<PrincipalEnv>();',
        '  app.use(svcAuth(auth));',
        "  app.get('/:org', requirePermission('org:read', { resource: (c) => `${c.req.param('org')}` }), (c) => {",
        '    is<Equal<typeof c.var.principal, Principal>>(true);',
        '    return c.json({ user: c.var.principal.userId });',
        '  });',
        '  app.onError(onError());',
        '  return [app, withAuth(auth, async (_req, p) => Response.json({ user: p.userId }))];',
        '}',
      ],
    },
    // Every root name, as a value or a type, and the names of svc-auth/policy and svc-auth/scanning.
    ...[
      [
        'a CommonJS consumer of every root name (module node16)',
        'names-cjs',
        'commonjs',
        { ...strict, module: 'node16', moduleResolution: 'node16', types: ['node'] },
      ],
      ['an ESM consumer of every root name (module nodenext)', 'names-esm', 'module', esm],
    ].map(([name, dir, type, options]) => ({ name, dir, type, options, code: everyName() })),
  ];
  for (const p of projects) {
    const dir = join(app, 'types', p.dir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: p.type }));
    writeFileSync(join(dir, 'consumer.ts'), `${p.code.join('\n')}\n`);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: p.options, files: ['consumer.ts'] }));
  }
  // The Hono project again with skipLibCheck: false, which must fail on node:http (the documented need for @types/node).
  writeFileSync(
    join(app, 'types', 'hono', 'tsconfig.libcheck.json'),
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { skipLibCheck: false } }),
  );
  checkDeprecations(
    app,
    projects.filter((p) => p.dir.startsWith('names-')),
  );
  for (const [which, tsc] of compilers) {
    const version = spawnSync(tsc, ['--version'], { encoding: 'utf8' }).stdout.trim();
    for (const p of projects) {
      const r = spawnSync(tsc, ['-p', join(app, 'types', p.dir, 'tsconfig.json')], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${p.name} does not type-check with ${version} (${which}):\n${r.stdout}${r.stderr}`);
      console.log(`${p.name} type-checks with ${version} (${which})`);
    }
    const r = spawnSync(tsc, ['-p', join(app, 'types', 'hono', 'tsconfig.libcheck.json')], { encoding: 'utf8' });
    if (r.status === 0 || !/node:http/.test(r.stdout))
      throw new Error(
        `the Hono consumer without @types/node now compiles with skipLibCheck: false (${version}): update docs/frameworks.md`,
      );
    console.log(`without @types/node and skipLibCheck: false it fails on node:http, as docs/frameworks.md says (${version})`);
  }
}

/** The names src/index.ts exports, split into values and types (`type X` or `export type { ... }`). */
function rootNamesInSource() {
  const file = join(root, 'src', 'index.ts');
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const values = [];
  const types = [];
  for (const st of sf.statements)
    if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause))
      for (const el of st.exportClause.elements) (st.isTypeOnly || el.isTypeOnly ? types : values).push(el.name.text);
  return { values, types };
}

/**
 * The packed declarations (ESM .d.ts and CJS .d.cts) mark no root name deprecated: nothing was published
 * before 0.1.0, so the root keeps no alias of a subpath's name.
 */
function checkDeprecations(app, projects) {
  const expected = new Set();
  for (const p of projects) {
    const { options } = ts.convertCompilerOptionsFromJson(p.options, app);
    const file = join(app, 'types', p.dir, 'consumer.ts');
    const program = ts.createProgram([file], options);
    const checker = program.getTypeChecker();
    const sf = program.getSourceFile(file);
    const spec = sf.statements.find((st) => ts.isImportDeclaration(st) && st.moduleSpecifier.text === 'svc-auth').moduleSpecifier;
    const mod = checker.getSymbolAtLocation(spec);
    const marked = new Set(
      checker
        .getExportsOfModule(mod)
        .filter((x) => x.getJsDocTags(checker).some((t) => t.name === 'deprecated'))
        .map((x) => x.getName()),
    );
    const where = mod.declarations?.[0]?.getSourceFile().fileName.replace(`${app}/`, '');
    const missing = [...expected].filter((n) => !marked.has(n));
    const extra = [...marked].filter((n) => !expected.has(n));
    if (missing.length || extra.length)
      throw new Error(
        `${where}: deprecation marks where none belong (not marked: ${missing.join(', ') || '-'}; marked: ${extra.join(', ') || '-'})`,
      );
    console.log(`${where} marks no name @deprecated (${p.name})`);
  }
}

/**
 * A module that names every root name (types by `import type`: a missing one is TS2305; values by use)
 * and every name of svc-auth/policy and svc-auth/scanning.
 */
function everyName() {
  const policyTypes = [
    'GrantInput',
    'Decision',
    'DenyReason',
    'ResourceRef',
    'RoleExpansion',
    'Scope',
    'ScopeEntry',
    'Permission',
    'RoleName',
    'UserRoles',
  ];
  return [
    `import type { ${ROOT_API.types.join(', ')} } from 'svc-auth';`,
    `import { ${ROOT_API.values.join(', ')} } from 'svc-auth';`,
    `import type { ${policyTypes.map((n) => `${n} as Policy${n}`).join(', ')} } from 'svc-auth/policy';`,
    `import * as policy from 'svc-auth/policy';`,
    `import * as scanning from 'svc-auth/scanning';`,
    `export const root = [${ROOT_API.values.join(', ')}];`,
    `export const moved = [${SUBPATH_EXPORTS.policy.map((n) => `policy.${n}`).join(', ')}, ${SUBPATH_EXPORTS.scanning.map((n) => `scanning.${n}`).join(', ')}];`,
  ];
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
    // Without the optional oidc-provider it serves PATs only (and says "OAuth is off" on stderr).
    const prm = await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json();
    if (prm.authorization_servers !== undefined) throw new Error('svc serve listed an authorization server without oidc-provider');
    return 'svc serve mounts /mcp without the MCP SDK installed, and runs without oidc-provider (no OAuth)';
  } finally {
    child.kill('SIGTERM');
  }
}
