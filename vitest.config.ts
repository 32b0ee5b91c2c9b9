import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  // examples/ import the package by its public names, as a user's code does.
  resolve: {
    alias: [
      { find: /^svc-auth$/, replacement: `${src}index.ts` },
      { find: /^svc-auth\/(.+)$/, replacement: `${src}entries/$1.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
