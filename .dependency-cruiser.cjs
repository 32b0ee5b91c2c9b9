// The layer table of svc-auth, enforced (`npm run lint:layers`). A layer imports only layers below it:
//   errors (usable by all) < 1 vocabulary < 2 scopes < 3 policy < 4 tokens < 5 stores < 6 service
//   < 7 http (and the framework adapters express, hono, fastify, and mcp) < 8 cli.
// src/postgres and src/testing are package entries (svc-auth/postgres, svc-auth/testing) that
// re-export the parts they ship. Across folders, a module imports another folder through its
// index.ts only, so each folder's index.ts is its whole interface.
/** @type {import('dependency-cruiser').IConfiguration} */

const LAYERS = [
  ['vocabulary'],
  ['scopes'],
  ['policy'],
  ['tokens'],
  ['stores'],
  ['service'],
  ['http', 'express', 'hono', 'fastify', 'mcp'],
  ['cli'],
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
      name: 'adapters-are-peers',
      comment: 'A framework adapter or mcp builds on http and service, never on another adapter.',
      severity: 'error',
      from: { path: '^src/(express|hono|fastify|mcp)/' },
      to: { path: '^src/(express|hono|fastify|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'nothing-imports-entries',
      comment: 'src/index.ts, src/postgres and src/testing are package entries: library code never imports them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(index\\.ts|postgres/|testing/)' },
      to: { path: '^src/(index\\.ts|postgres/|testing/)' },
    },
    {
      name: 'stores-need-no-policy',
      comment:
        'Stores keep records and memberships (vocabulary and scope types); they never decide or mint (DESIGN: stores use nothing above).',
      severity: 'error',
      from: { path: '^src/stores/' },
      to: { path: '^src/(policy|tokens)/' },
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
      comment: "Across folders, import a folder's index.ts: its public face.",
      severity: 'error',
      // svc-auth/postgres is an entry of its own: it reaches the store file so that pg stays out of the root bundle.
      // For the same reason the CLI loads that one file with a dynamic import, only when SVC_DATABASE_URL is set.
      from: { path: '^src/([^/]+)/', pathNot: '^src/postgres/' },
      to: { path: '^src/([^/]+)/(?!index\\.ts$)', pathNot: ['^src/$1/', '^src/stores/postgres\\.ts$'] },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: '\\.d\\.ts$' },
      to: {},
    },
    {
      name: 'not-to-dev-dep',
      comment: 'Runtime code may not import a devDependency (pg is an optional peer, vitest a peer of svc-auth/testing).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { dependencyTypes: ['npm-dev'], pathNot: 'node_modules/(pg|@types/pg)/' },
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
