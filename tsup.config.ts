import { writeFile } from 'node:fs/promises';
import { defineConfig, type Options } from 'tsup';
// The package's entries, shared with scripts/build-types.mjs (declarations) and scripts/build.mjs.
import ENTRIES from './scripts/build-entries.json' with { type: 'json' };

// Optional peers (pg, vitest, the web frameworks) are the user's own install: never bundled.
const peers = ['pg', 'vitest', 'express', 'hono', 'fastify', '@modelcontextprotocol/sdk', 'oidc-provider'];

const common: Options = {
  clean: false,
  sourcemap: false,
  treeshake: true,
  target: 'node20',
  platform: 'node',
  external: peers,
};

// One entry per public subpath; optional parts stay out of the root bundle. All in one build so that
// they share chunks: a Grant made by svc-auth/policy is the root's Grant, and a Principal made by the
// root's createAuth is recognised by svc-auth/mcp (whose MCP SDK stays an external, optional peer).
// svc-auth/oauth imports its optional peer oidc-provider on first use (it has Node 20.18+ needs of its own).
const library = ENTRIES.library;

// The whole CommonJS side of svc-auth/testing: one Error that says what to do instead. Its code is
// Node's own for require() of an ES module, so tools that fall back to import() on it (mocha) do.
const TESTING_CJS = `'use strict';
const err = new Error(
  "svc-auth/testing is ESM-only: it registers vitest tests, and vitest cannot be loaded with require(). " +
    "Use import in an ES module test file (.mjs, .mts, or a package with \\"type\\": \\"module\\"): " +
    "import { tokenStoreConformance } from 'svc-auth/testing'. The other entries of svc-auth work with require().",
);
err.code = 'ERR_REQUIRE_ESM';
throw err;
`;

export default defineConfig([
  {
    ...common,
    entry: library,
    format: ['esm'],
    // Declarations are made once for every entry, by scripts/build-types.mjs (not per tsup build).
    dts: false,
    // Shared chunks: an error class thrown by svc-auth/postgres must be the same class the root exports (instanceof).
    splitting: true,
    // fastify-plugin is a small CommonJS helper with no dependencies: bundled into
    // svc-auth/fastify so that users install one package less, and so that no
    // second copy of it (or version skew) can sit between their fastify and ours.
    noExternal: ['fastify-plugin'],
  },
  {
    ...common,
    entry: library,
    format: ['cjs'],
    // The declarations (scripts/build-types.mjs) name no jose type (tokens/types.ts declares JWK): a
    // CommonJS TypeScript consumer (module node16) may not import types from an ESM-only package.
    dts: false,
    splitting: true,
    // jose is ESM-only: Node 20.0-20.18 cannot require() it (ERR_REQUIRE_ESM), yet
    // `engines` admits them. The CommonJS build carries its own copy of jose so that
    // require('svc-auth') works on every Node >= 20; the ESM build imports jose.
    noExternal: ['jose', 'fastify-plugin'],
  },
  {
    ...common,
    // svc-auth/testing registers vitest tests, and vitest cannot be require()d: ESM only.
    // It imports no runtime code of the library, so a separate bundle shares no classes.
    entry: ENTRIES.esmOnly,
    format: ['esm'],
    dts: false,
    splitting: false,
    // package.json sends require('svc-auth/testing') here: without a "require" target Node says the
    // subpath "is not exported", which reads like a missing feature rather than a module format.
    onSuccess: () => writeFile('dist/testing.cjs', TESTING_CJS),
  },
  {
    ...common,
    // The `svc` program: ESM only, its shebang kept by esbuild.
    entry: ENTRIES.program,
    format: ['esm'],
    // `svc serve` mounts /mcp: the MCP SDK is bundled here, with the hono pieces its transports use
    // (hono is also an optional peer of svc-auth/hono, which would otherwise keep it external),
    // so the installed `svc` needs no optional peer.
    // oidc-provider is not bundled either: `svc serve` imports it when it starts (an optional peer;
    // without it the server runs with no authorization server and says so).
    external: ['pg', 'vitest', 'oidc-provider'],
    noExternal: [/^@modelcontextprotocol\/sdk/, /^hono(\/|$)/, /^@hono\/node-server/],
    dts: false,
    splitting: false,
  },
]);
