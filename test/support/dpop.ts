/**
 * DPoP keys and proofs for the tests, signed with jose as any client would:
 * a key pair with its public JWK and thumbprint, a proof for one request,
 * and the headers of a request that carries a bound token with its proof.
 */
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';

export interface TestKey {
  readonly alg: 'EdDSA' | 'ES256' | 'ES384' | 'RS256';
  readonly publicJwk: JWK;
  readonly privateKey: CryptoKey;
  /** RFC 7638 SHA-256 thumbprint of the public key. */
  readonly thumbprint: string;
}

/** A fresh key pair (Ed25519 unless told). */
export async function newKey(alg: TestKey['alg'] = 'EdDSA'): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { alg, publicJwk, privateKey, thumbprint: await calculateJwkThumbprint(publicJwk) };
}

export interface ProofFor {
  method?: string;
  url: string;
  /** The access token, for `ath`; without it there is no `ath`. */
  token?: string;
  /** The proof's `iat`, seconds (default: now). */
  iatSec?: number;
  /** The resource's nonce (RFC 9449 §9); none unless given. */
  nonce?: string;
}

/** A DPoP proof by `key` for one request. */
export function proof(key: TestKey, p: ProofFor): Promise<string> {
  const claims: Record<string, unknown> = { htm: p.method ?? 'GET', htu: p.url, jti: randomUUID() };
  if (p.token !== undefined) claims.ath = createHash('sha256').update(p.token).digest('base64url');
  if (p.nonce !== undefined) claims.nonce = p.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk })
    .setIssuedAt(p.iatSec ?? Math.floor(Date.now() / 1000))
    .sign(key.privateKey);
}

/** The headers of a request carrying `token` bound to `key`, with a fresh proof for `url`. */
export async function dpopHeaders(key: TestKey, token: string, p: Omit<ProofFor, 'token'>): Promise<Record<string, string>> {
  return { authorization: `DPoP ${token}`, dpop: await proof(key, { ...p, token }) };
}
