/**
 * authenticateRequest reads a header's token without checking its characters
 * first, and checks them only when the token is not one it verified before
 * (src/tokens/bearer.ts, bearerTextFromRequest). These tests hold that no header
 * the full check refuses is ever accepted that way: a verified token with
 * anything around it, inside it or after it is still a malformed header.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { bearerFromRequest, isHeaderProblem } from '../../src/tokens';
import { rejection } from '../support/errors';
import { testAuth } from '../support/auth';

const nodeReq = (authorization: string) => ({ headers: { authorization }, rawHeaders: ['Authorization', authorization] });

describe('authenticateRequest with a token verified before (attack: smuggling text next to a cached token)', () => {
  it('a hot token with text appended, inserted or replaced is refused as a malformed header', async () => {
    const s = await testAuth();
    const token = await s.auth.issueSession('alice');
    await s.auth.authenticateRequest(nodeReq(`Bearer ${token}`)); // now in the signature cache
    for (const header of [
      `Bearer ${token} x`,
      `Bearer ${token},${token}`,
      `Bearer ${token}"`,
      `Bearer ${token}=x`,
      `Bearer ${token.slice(0, 20)} ${token.slice(20)}`,
    ]) {
      const err = await rejection(s.auth.authenticateRequest(nodeReq(header)));
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as AuthenticationError).reason).toBe('malformed');
      expect(isHeaderProblem(err)).toBe(true);
    }
    // The hot token itself, with padding-free OWS around it, still works.
    expect((await s.auth.authenticateRequest(nodeReq(`  Bearer   ${token} `))).userId).toBe('alice');
  });

  it('property: a header is accepted only if the full header check accepts it too', async () => {
    const s = await testAuth();
    const token = await s.auth.issueSession('alice');
    await s.auth.authenticateRequest(nodeReq(`Bearer ${token}`));
    const noise = fc.string({ unit: fc.constantFrom(' ', '\t', '=', ',', '"', 'a', '.', '-', '~', '+', '/', '\u00e9'), maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(noise, noise, fc.constantFrom('Bearer ', 'bearer ', 'BEARER  ', 'Bearer\t'), async (before, after, scheme) => {
        const header = `${before}${scheme}${token}${after}`;
        let fullCheck: string | undefined;
        try {
          fullCheck = bearerFromRequest(nodeReq(header));
        } catch {
          fullCheck = undefined;
        }
        const got = await s.auth.authenticateRequest(nodeReq(header)).then(
          (p) => p.userId,
          (err: unknown) => err,
        );
        if (fullCheck === undefined) {
          expect(got).toBeInstanceOf(AuthenticationError);
          expect(isHeaderProblem(got)).toBe(true);
        } else if (fullCheck === token) {
          expect(got).toBe('alice');
        } else {
          expect(got).toBeInstanceOf(AuthenticationError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
