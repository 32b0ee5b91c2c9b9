import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactTokens } from '../../src/tokens';
import { REDACTED } from '../../src/tokens/redact';
import { aToken, leaks } from '../support/token';

describe('redactTokens', () => {
  it('a plain token in a message is redacted; text without tokens is unchanged', async () => {
    const token = await aToken();
    expect(redactTokens(`unknown command '${token}'`)).toBe(`unknown command '${REDACTED}'`);
    expect(redactTokens('GET /api/repos/acme/web/things/Doc/a%20b 200')).toBe('GET /api/repos/acme/web/things/Doc/a%20b 200');
  });

  it('token in a path with dots as %2E, %252E or with / between segments is redacted', async () => {
    const token = await aToken();
    for (const spelled of [
      token.replaceAll('.', '%2E'),
      token.replaceAll('.', '%252e'),
      token.replaceAll('.', '/'),
      encodeURIComponent(token).replace(/e/g, '%65'),
    ]) {
      const out = redactTokens(`GET /api/whoami/${spelled}?x=1 404`);
      expect(leaks(out, token)).toBe(false);
      expect(out).toContain(REDACTED);
    }
  });

  it('never throws and is linear on hostile text (long eyJ runs, broken escapes)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        expect(typeof redactTokens(s)).toBe('string');
      }),
    );
    const big = `${'eyJ'.repeat(50_000)}${'%2'.repeat(50_000)}${'.aaaaaaaa'.repeat(50_000)}`;
    expect(typeof redactTokens(big)).toBe('string');
    expect(redactTokens(undefined as unknown as string)).toBe('');
  });
});
