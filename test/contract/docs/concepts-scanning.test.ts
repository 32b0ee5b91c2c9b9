/**
 * Defect (issue 28, item 16): docs/concepts.md showed `logText.matchAll(TOKEN_PATTERN)`,
 * which throws (the pattern has no `g` flag: it tests one string). The page now shows
 * `findTokens`; this test keeps the page from showing the throwing form again, and runs
 * what it shows on a log with two real PATs.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findTokens, TOKEN_PATTERN } from 'svc-auth/scanning';
import { testAuth } from '../../support/auth';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const page = readFileSync(join(ROOT, 'docs/concepts.md'), 'utf8');

describe('docs/concepts.md: finding leaked tokens in text', () => {
  it('shows findTokens, never matchAll(TOKEN_PATTERN), which throws', () => {
    expect(() => [...'log'.matchAll(TOKEN_PATTERN)]).toThrow(TypeError);
    expect(page).not.toMatch(/matchAll\(TOKEN_PATTERN\)/);
    expect(page).toContain("import { findTokens } from 'svc-auth/scanning';");
    expect(page).toContain('findTokens(logText);');
  });

  it('what it shows finds every PAT in a log', async () => {
    const s = await testAuth();
    const me = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const [a, b] = [(await me.token.create({ name: 'a' })).token, (await me.token.create({ name: 'b' })).token];
    expect(findTokens(`build log: ${a}\nsecond line ${b} end`)).toEqual([a, b]);
  });
});
