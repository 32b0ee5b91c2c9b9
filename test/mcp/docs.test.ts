/**
 * docs/mcp.md shows the MCP examples verbatim: the npm package ships docs/
 * but not examples/, so the page holds the code itself. Each TypeScript block
 * under a `<!-- file: examples/... -->` marker must be that file, which
 * examples.test.ts runs (and `npm run check:docs` compiles the block).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/mcp.md', root), 'utf8');

describe('docs/mcp.md', () => {
  const blocks = [...doc.matchAll(/<!-- file: (\S+) -->\n```(?:ts|typescript)\n([\s\S]*?)\n```/g)];

  it('shows the three MCP examples: the tools, node:http, fetch', () => {
    expect(blocks.map((b) => b[1])).toEqual(['examples/mcp-tools.ts', 'examples/mcp-node.ts', 'examples/mcp-fetch.ts']);
  });

  it.each(blocks.map((b) => [b[1] ?? '', b[2] ?? ''] as const))('the block of %s is that file, verbatim', (file, code) => {
    expect(code).toBe(readFileSync(new URL(file, root), 'utf8').replace(/\n+$/, ''));
  });

  it('links to no file the npm package does not contain', () => {
    // The package ships dist/, docs/, README.md, CHANGELOG.md and LICENSE.
    expect(doc).not.toMatch(/\]\((?:\.\.\/)+(?:examples|src|test)\//);
  });
});
