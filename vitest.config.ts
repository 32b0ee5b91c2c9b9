import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testProjects } from './scripts/test-projects.mjs';

const src = fileURLToPath(new URL('./src/', import.meta.url));
// Three projects, decided by what each test file does (scripts/test-projects.mjs; docs/testing.md says which
// to run when): `unit` is in-process, `integration` uses HTTP, PostgreSQL or processes, `browser` chromium
// or mcp-remote. Every `*.test.ts` file is in exactly one; `vitest run` runs all three.
const projects = testProjects();

export default defineConfig({
  // examples/ import the package by its public names, as a user's code does.
  resolve: {
    alias: [
      { find: /^svc-auth$/, replacement: `${src}index.ts` },
      { find: /^svc-auth\/(.+)$/, replacement: `${src}entries/$1.ts` },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // In-process files share one module graph per worker: re-importing the library for each of them cost
      // more than half of the project's time. A unit test therefore restores what it changes (timers, env).
      { extends: true, test: { name: 'unit', include: projects.unit, isolate: false } },
      { extends: true, test: { name: 'integration', include: projects.integration } },
      { extends: true, test: { name: 'browser', include: projects.browser } },
    ],
  },
});
