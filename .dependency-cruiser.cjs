// The layer table of svc-auth, enforced (`npm run lint:layers`; drawn in docs/architecture.md, whose
// tables scripts/check-architecture.mjs keeps equal to LAYERS). A layer imports only layers below it:
//   errors (usable by all) < 1 core/vocabulary, core/network < 2 core/scopes, outbound < 3 core/policy < 4 tokens < 5 stores
//   < 6 service < 7 http < 8 the adapters over http's kit (adapters/node, /fetch, /express, /hono, /fastify), mcp, leaks, oauth and testing,
//   peers < 9 app (the `svc` program: app/cli, app/dev, app/server).
// Tokens sit beside the core rather than on it (rule tokens-beside-the-core): two columns on the shared
// vocabulary, meeting in service.
// src/index.ts and src/entries/ are the package's faces (svc-auth, svc-auth/<subpath>): they re-export
// the parts they ship, and no library code imports them. The reference server (src/app/server) is the
// one exception, the other way round: of src/ it imports nothing but those faces, as a user's server
// does. Across folders, a module imports another folder through its index.ts only, so each folder's
// index.ts is its whole interface.
/** @type {import('dependency-cruiser').IConfiguration} */

const LAYERS = [
  ['core/vocabulary', 'core/network'],
  ['core/scopes', 'outbound'],
  ['core/policy'],
  ['tokens'],
  ['stores'],
  ['service'],
  ['http'],
  ['adapters/node', 'adapters/fetch', 'adapters/express', 'adapters/hono', 'adapters/fastify', 'mcp', 'leaks', 'oauth', 'testing'],
  ['app'],
];
const folders = (names) => `^src/(${names.join('|')})/`;

/** One rule per layer: nothing in it imports a layer above it. */
const layerRules = LAYERS.slice(0, -1).map((names, i) => ({
  name: `layer-${i + 1}-imports-upward`,
  comment: `${names.join(', ')} (layer ${i + 1}) may not import a higher layer.`,
  severity: 'error',
  from: { path: folders(names) },
  to: { path: folders(LAYERS.slice(i + 1).flat()) },
}));

// A unit is a folder with a place in the layer table: src/<name>/, or one level deeper under the
// folders that group units (core/, adapters/, app/).
const UNIT = 'src/(?:(?:core|adapters|app)/[^/]+|[^/]+)/';

// Inside a unit, a module may import files of its own folder and of the folders that hold it; a
// subfolder is reached through its index.ts. One rule per depth of the importing module.
const DEPTHS = [1, 2, 3, 4];
const subfolderRules = DEPTHS.map((depth) => {
  const groups = Array.from({ length: depth }, (_, i) => (i === 0 ? '(src/[^/]+/)' : '([^/]+/)'));
  return {
    name: `subfolder-through-index-${depth}`,
    comment: 'Reach a subfolder through its index.ts: its public face (a module at this depth).',
    severity: 'error',
    from: { path: `^${groups.join('')}[^/]+$` },
    to: {
      path: '^src/',
      pathNot: [
        '/index\\.ts$',
        // A package entry is a face too (only the reference server may import one: see below).
        '^src/entries/[^/]+\\.ts$',
        ...DEPTHS.slice(0, depth).map((d) => `^${Array.from({ length: d }, (_, i) => `$${i + 1}`).join('')}[^/]+$`),
      ],
    },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'errors-imports-nothing',
      comment: 'src/errors sits beneath every layer.',
      severity: 'error',
      from: { path: '^src/errors/' },
      to: { path: '^src/(?!errors/)' },
    },
    {
      name: 'core-is-pure',
      comment: 'src/core (vocabulary, scopes, policy) is pure and synchronous: no Node.js builtin (no I/O, no clock, no crypto).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'adapters-are-peers',
      comment: 'A framework adapter, mcp, leaks, oauth or testing builds on the layers below, never on one another.',
      severity: 'error',
      from: { path: '^src/(adapters/[^/]+|mcp|leaks|oauth|testing)/' },
      to: { path: '^src/(adapters/[^/]+|mcp|leaks|oauth|testing)/', pathNot: '^src/$1/' },
    },
    {
      name: 'nothing-imports-entries',
      comment: 'src/index.ts and src/entries/ are package faces: library code never imports them (the reference server aside).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(index\\.ts$|entries/|app/server/)' },
      to: { path: '^src/(index\\.ts$|entries/)' },
    },
    {
      name: 'reference-server-uses-the-public-api',
      comment:
        "The reference server (src/app/server) is code a user can copy: of src/ it imports only the package's entries " +
        '(`svc-auth` is src/index.ts, `svc-auth/<subpath>` is src/entries/<subpath>.ts through tsconfig paths) and its own files.',
      severity: 'error',
      from: { path: '^src/app/server/', pathNot: '^src/app/server/input\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/entries/[^/]+\\.ts$', '^src/app/server/'] },
    },
    {
      name: 'reference-server-reads-bodies-with-the-edge-kit',
      comment:
        "The reference server's input (src/app/server/input.ts) reads a body and answers 413 with the edge kit of the " +
        "HTTP layer (src/http's face: the one bounded body reader and answer writer of the library's own endpoints, " +
        'which no entry exports), so the server holds no copy of them; of src/ it imports nothing else but the entries.',
      severity: 'error',
      from: { path: '^src/app/server/input\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/entries/[^/]+\\.ts$', '^src/app/server/', '^src/http/index\\.ts$'] },
    },
    {
      name: 'tokens-beside-the-core',
      comment:
        'The policy core (scopes -> policy) and the tokens are two columns on the shared vocabulary that meet in the service: tokens import the vocabulary (permission words, input checks) and the network rules (service URLs) and nothing else of core.',
      severity: 'error',
      from: { path: '^src/tokens/' },
      to: { path: '^src/core/(?!vocabulary/|network/)' },
    },
    {
      name: 'node-net-only-for-sockets',
      comment:
        'Addresses, loopback and URLs are decided by core/network (pure, one table); node:net is for code that holds a socket: the CIMD fetch (its connect-time lookup) and the reference server (its listening address).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(oauth/cimd/fetch\\.ts|app/server/)' },
      to: { path: '^(node:)?net$' },
    },
    {
      name: 'stores-need-no-policy',
      comment:
        'Stores keep records and memberships (vocabulary and scope types); they never decide or mint (DESIGN: stores use nothing above).',
      severity: 'error',
      from: { path: '^src/stores/' },
      to: { path: '^src/(core/policy|tokens)/' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes load order matter and hides a layer breach.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'through-index-only',
      comment:
        "Across units, import a unit's index.ts: its public face. A store with an optional peer (src/stores/<name>/) has a face " +
        'of its own, which the stores face does not re-export, so that its peer (pg) loads only where that store is asked for.',
      severity: 'error',
      from: { path: `^(${UNIT})`, pathNot: '^src/app/server/' },
      to: { path: '^src/', pathNot: ['^$1', `^${UNIT}index\\.ts$`, '^src/stores/[^/]+/index\\.ts$'] },
    },
    ...subfolderRules,
    {
      name: 'no-orphans',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: '\\.d\\.ts$' },
      to: {},
    },
    {
      name: 'not-to-dev-dep',
      comment: 'Runtime code may not import a devDependency (pg and oidc-provider are optional peers, vitest a peer of svc-auth/testing).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { dependencyTypes: ['npm-dev'], pathNot: 'node_modules/(pg|@types/pg|oidc-provider|@types/oidc-provider)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
