import { defineConfig, type Options } from 'tsup';

const common: Options = {
  clean: false,
  sourcemap: false,
  treeshake: true,
  target: 'node20',
  platform: 'node',
  external: ['pg', 'vitest'],
};

export default defineConfig([
  {
    ...common,
    // One entry per public subpath; optional parts (postgres, testing) stay out of the root bundle.
    entry: {
      index: 'src/index.ts',
      postgres: 'src/postgres/index.ts',
      // svc-auth/mcp: the MCP SDK stays an external, optional peer; shares the root's chunks (same Principal slots).
      mcp: 'src/mcp/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    // Shared chunks: an error class thrown by svc-auth/postgres must be the same class the root exports (instanceof).
    splitting: true,
  },
  {
    ...common,
    // svc-auth/testing registers vitest tests, and vitest cannot be require()d: ESM only.
    // It imports no runtime code of the library, so a separate bundle shares no classes.
    entry: { testing: 'src/testing/index.ts' },
    format: ['esm'],
    dts: true,
    splitting: false,
  },
  {
    ...common,
    // The `svc` program: ESM only, its shebang kept by esbuild.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    // `svc serve` mounts /mcp: the MCP SDK is bundled here, so the installed `svc` needs no optional peer.
    noExternal: [/^@modelcontextprotocol\/sdk/],
    dts: false,
    splitting: false,
  },
]);
