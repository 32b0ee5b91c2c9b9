/**
 * docs/leaks.md: the patterns it tells readers to register with GitHub are
 * `TOKEN_PATTERN`'s own (and its look-around-free split matches the same
 * tokens), and its self-contained examples run and print what they say.
 * (Every ts block is also type-checked against the public exports by
 * `npm run check:docs`.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findTokens, TOKEN_PATTERN } from '../../src/tokens';
import { testAuth } from '../support/auth';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const page = readFileSync(join(ROOT, 'docs/leaks.md'), 'utf8');
const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const dir = mkdtempSync(join(ROOT, 'test/leaks/.docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/leaks.md', { timeout: 120_000 }, () => {
  it('gives TOKEN_PATTERN as it is, and a secret format with boundaries that finds the same tokens', async () => {
    expect(page).toContain(`\n  ${TOKEN_PATTERN.source}\n`);
    const format = /secret format: {2}(\S+)/.exec(page)?.[1] as string;
    const before = /before secret: {2}(\S+)/.exec(page)?.[1] as string;
    const after = /after secret: {3}(\S+)/.exec(page)?.[1] as string;
    expect(TOKEN_PATTERN.source).toBe(`(?<![A-Za-z0-9_-])${format}(?![A-Za-z0-9_-])`);
    // The split form, in a JavaScript rendering of Hyperscan's \A and \z, finds what TOKEN_PATTERN finds.
    const split = new RegExp(`(?:${before.replace('\\A', '^')})(${format})(?=${after.replace('\\z', '$')})`, 'g');
    const s = await testAuth();
    const me = await s.auth.principalFor('alice');
    const { token } = await s.auth.client(me).token.create({ name: 'doc' });
    for (const text of [token, `x=${token};`, `"${token}"`, `a${token}`, `${token}b`, `${token}.json`]) {
      expect(
        [...text.matchAll(split)].map((m) => m[1]),
        text,
      ).toEqual(findTokens(text));
    }
  });

  it('the self-contained examples run and print what they say', () => {
    const runnable = [0, blocks.length - 1];
    const outputs = runnable.map((i) => {
      const file = join(dir, `run${i}.ts`);
      writeFileSync(
        file,
        (blocks[i] as string)
          .replaceAll("from 'svc-auth'", `from '${join(ROOT, 'src/index.ts')}'`)
          .replaceAll("from 'svc-auth/leaks'", `from '${join(ROOT, 'src/entries/leaks.ts')}'`) + '\nexport {};\n',
      );
      const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout;
    });
    expect(outputs[0]).toContain("1 2 [ 'revoked', 'foreign', 'revoked' ]");
    expect(outputs[0]).toMatch(/AuthenticationError: .*revoked/);
    expect(outputs[0]).toMatch(/\n1\n$/);
    expect(outputs[1]).toMatch(
      /^200 \[\s*\{\s*token_hash: '[0-9a-f]{64}',\s*token_type: 'acme_svc_pat',\s*label: 'true_positive'\s*\}\s*\]/,
    );
  });
});
