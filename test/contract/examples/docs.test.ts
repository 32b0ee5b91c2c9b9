/**
 * docs/frameworks.md shows the examples verbatim: every TypeScript block is
 * the whole of the examples/ file named just above it, so a README or docs
 * snippet that stops working fails here (the examples themselves are
 * type-checked by `npm run typecheck` and run by examples.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const doc = readFileSync(new URL('docs/frameworks.md', root), 'utf8');

describe('docs/frameworks.md', () => {
  const blocks = [...doc.matchAll(/(?:<!-- file: (\S+) -->\n)?```(?:ts|typescript)\n([\s\S]*?)\n```/g)];

  it('has one TypeScript block per example: node:http, fetch, Express, Hono, Fastify', () => {
    expect(blocks.map((b) => b[1])).toEqual([
      'examples/node-http.ts',
      'examples/fetch.ts',
      'examples/express.ts',
      'examples/hono.ts',
      'examples/fastify.ts',
    ]);
  });

  it.each(blocks.map((b) => [b[1] ?? '(a block without a file marker)', b[2] ?? ''] as const))(
    'the block of %s is that file, verbatim',
    (file, code) => {
      expect(file.startsWith('examples/')).toBe(true);
      expect(code).toBe(readFileSync(new URL(file, root), 'utf8').replace(/\n+$/, ''));
    },
  );
});
