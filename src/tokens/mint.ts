/**
 * Minting (T1): a JWT whose header is `{"typ","alg","kid"}` in that order, so that
 * all PATs begin with the same text, and whose payload is the five claims only.
 * @module
 */
import { SignJWT } from 'jose';
import { ValidationError } from '../errors';
import { TOKEN_TYPES, checkClaimSet } from './claims';
import { lowS, isKeyRing, signingKey } from './keys';
import type { KeyRing, TokenClaims } from './types';

/**
 * Sign a token of `claims.kind` with the ring's current signing key. The header is
 * `{"typ":<TOKEN_TYPES[kind]>,"alg","kid"}`; the payload holds `iss`, `sub`, `jti`,
 * `iat`, `exp` and nothing else (scopes live in the token record).
 *
 * @throws ValidationError when `ring` is not a key ring of this library or the claims
 *   are not well formed (unknown kind, empty strings, non-integer times, `exp <= iat`).
 * @example
 * ```ts
 * import { generateKeyRing, mintToken, newTokenId } from 'svc-auth';
 * const ring = await generateKeyRing();
 * const iat = Math.floor(Date.now() / 1000);
 * const token = await mintToken(ring, { kind: 'pat', iss: 'https://svc.example', sub: 'u1',
 *   jti: newTokenId(), iat, exp: iat + 30 * 86400 });
 * ```
 */
export async function mintToken(ring: KeyRing, claims: TokenClaims): Promise<string> {
  if (!isKeyRing(ring)) throw new ValidationError([{ path: 'ring', message: 'not a key ring made by generateKeyRing or importKeyRing' }]);
  if (typeof claims !== 'object' || claims === null) throw new ValidationError([{ path: 'claims', message: 'expected an object' }]);
  const { kind, ...rest } = claims;
  const typ = typeof kind === 'string' && Object.hasOwn(TOKEN_TYPES, kind) ? TOKEN_TYPES[kind] : undefined;
  if (typ === undefined) throw new ValidationError([{ path: 'claims.kind', message: 'expected pat, session or component' }]);
  const checked = checkClaimSet(rest);
  if (!checked.ok) throw new ValidationError([{ path: `claims.${checked.path}`, message: checked.message }]);
  const { iss, sub, jti, iat, exp } = checked.claims;
  const key = signingKey(ring);
  const token = await new SignJWT({ iss, sub, jti, iat, exp }).setProtectedHeader({ typ, alg: key.alg, kid: key.kid }).sign(key.signKey);
  // One text per token: verify refuses the high-S twin of an ES256 signature.
  return key.alg === 'ES256' ? lowS(token) : token;
}
