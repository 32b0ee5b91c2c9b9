/**
 * A real PAT for tests that check where token values may appear, and the one
 * test of whether any piece of it leaked into a text.
 */
import { newTokenId, generateKeyRing, mintToken } from '../../src/tokens';

/** A freshly minted PAT of `alice`, signed by a new ring. */
export async function aToken(): Promise<string> {
  const ring = await generateKeyRing();
  const iat = 1_700_000_000;
  return mintToken(ring, { kind: 'pat', iss: 'svc-dev', sub: 'alice', jti: newTokenId(), iat, exp: iat + 3600 });
}

/** Does any piece of the token long enough to matter (16 characters of a segment) appear in `text`? */
export function leaks(text: string, token: string): boolean {
  return token.split('.').some((seg) => seg.length >= 16 && text.includes(seg.slice(0, 16)));
}
