import { defineConfig } from 'tsup';

export default defineConfig({
  // One entry per public subpath; optional parts (postgres, testing) stay out of the root bundle.
  entry: {
    index: 'src/index.ts',
    postgres: 'src/postgres/index.ts',
    testing: 'src/testing/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  // Shared chunks: an error class thrown by svc-auth/postgres must be the same class the root exports (instanceof).
  splitting: true,
  treeshake: true,
  target: 'node20',
  platform: 'node',
  external: ['pg', 'vitest'],
});
