/**
 * The CLI's side of key-bound tokens: the key pair `svc token create
 * --bind-key` makes (Ed25519, the private key kept in
 * `SVC_HOME/keys/<token name>.jwk`, mode 0600), a public key the user holds
 * elsewhere, finding the key of a bound token, and signing DPoP proofs
 * (RFC 9449) with it.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { AuthenticationError, UnavailableError, ValidationError } from '../../errors';
import { JsonFile, type TokenRecord, type TokenStore } from '../../stores';

/** A private key the CLI signs proofs with. */
export interface ProofKey {
  readonly alg: string;
  readonly privateKey: CryptoKey;
  /** The public half, sent in every proof's header. */
  readonly publicJwk: JWK;
  /** RFC 7638 SHA-256 thumbprint: what a bound token's record names. */
  readonly thumbprint: string;
}

/** The proof algorithm of a key, by its type and curve; `undefined` for a key no proof may use. */
function algOf(jwk: JWK): string | undefined {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-384') return 'ES384';
  if (jwk.kty === 'RSA') return 'RS256';
  return undefined;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** The public members of a private JWK (what a proof header carries). */
function publicOf(jwk: JWK): JWK {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(jwk)) if (!PRIVATE_MEMBERS.includes(k) && k !== 'key_ops' && k !== 'ext') out[k] = v;
  return out;
}

/**
 * The file a generated key of token `name` is kept in: `SVC_HOME/keys/<name>.jwk`, mode 0600 in a 0700 folder.
 *
 * @example
 * ```ts
 * await keyFile(dev.home, 'ci').update(() => privateJwk);
 * ```
 */
export function keyFile(home: string, name: string): JsonFile<JWK> {
  return new JsonFile<JWK>(join(home, 'keys', `${name}.jwk`), { mode: 0o600, label: 'key file' });
}

/**
 * A fresh Ed25519 key pair for `--bind-key`, both halves as JWKs.
 *
 * @example
 * ```ts
 * const { privateJwk, publicJwk } = await newBindKey();
 * ```
 */
export async function newBindKey(): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const privateJwk = await exportJWK(privateKey);
  return { privateJwk, publicJwk: publicOf(privateJwk) };
}

/**
 * The JWK (a JSON object) in the file `path`; `what` names it in errors.
 *
 * @example
 * ```ts
 * const jwk = await readJwkFile("./ci.jwk", "--key");
 * ```
 */
export async function readJwkFile(path: string, what: string): Promise<JWK> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UnavailableError(`cannot read ${what} ${path}`, { cause: err });
  }
  try {
    const data: unknown = JSON.parse(text);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('not an object');
    return data;
  } catch {
    throw new ValidationError([{ path: what, message: `${path} is not a JWK (a JSON object)` }]);
  }
}

/**
 * The public JWK in `path`, for `--bind-key <file>`: a file holding a private key is refused, so that
 * the private key is never taken in (nor stored) by mistake.
 *
 * @example
 * ```ts
 * const publicJwk = await readPublicKeyFile('./ci.pub.jwk');
 * ```
 */
export async function readPublicKeyFile(path: string): Promise<JWK> {
  const jwk = await readJwkFile(path, '--bind-key');
  if (PRIVATE_MEMBERS.some((m) => Object.hasOwn(jwk, m))) {
    throw new ValidationError([{ path: '--bind-key', message: `${path} holds a private key: give the public key only` }]);
  }
  return jwk;
}

/**
 * The private JWK `jwk` as a key to sign proofs with.
 *
 * @example
 * ```ts
 * const key = await proofKey(privateJwk, 'SVC_TOKEN_KEY');
 * ```
 */
export async function proofKey(jwk: JWK, what: string): Promise<ProofKey> {
  const alg = algOf(jwk);
  if (alg === undefined || typeof jwk.d !== 'string') {
    throw new ValidationError([{ path: what, message: 'expected a private Ed25519, P-256, P-384 or RSA key (a JWK with d)' }]);
  }
  let privateKey: CryptoKey;
  try {
    privateKey = (await importJWK(jwk, alg)) as CryptoKey;
  } catch (err) {
    throw new ValidationError([{ path: what, message: 'not a usable private key' }], { cause: err });
  }
  const publicJwk = publicOf(jwk);
  return { alg, privateKey, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

/** What one proof is for: the request, the bound token (for `ath`), the server's nonce, the time. */
export interface ProofRequest {
  readonly method: string;
  readonly url: string;
  readonly token?: string | undefined;
  /** The nonce the server handed out (`DPoP-Nonce`, RFC 9449 §9), when it asks for one. */
  readonly nonce?: string | undefined;
  readonly nowMs?: number;
}

/**
 * A DPoP proof by `key` for one request; with the access token, its hash (`ath`); with the server's
 * nonce, that nonce.
 *
 * @example
 * ```ts
 * const proof = await signProof(key, { method: 'GET', url: 'http://127.0.0.1:8080/api/whoami', token });
 * ```
 */
export async function signProof(key: ProofKey, request: ProofRequest): Promise<string> {
  const { method, url, token, nonce, nowMs = Date.now() } = request;
  const claims: Record<string, unknown> = { htm: method, htu: url, jti: randomUUID() };
  if (token !== undefined) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
    claims.ath = Buffer.from(digest).toString('base64url');
  }
  if (nonce !== undefined) claims.nonce = nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk })
    .setIssuedAt(Math.floor(nowMs / 1000))
    .sign(key.privateKey);
}

/**
 * The key of a bound `token`: the private key file `SVC_TOKEN_KEY` names, else the key
 * `svc token create --bind-key` saved for it (found by the token's name in this SVC_HOME).
 * `undefined` when the token is bound to no key (or, without `SVC_TOKEN_KEY`, is not of this
 * SVC_HOME); `AuthenticationError` reason `bound` when it is bound and no key of it is found.
 *
 * @example
 * ```ts
 * const key = await keyOfToken(io.env, dev, token);
 * ```
 */
export async function keyOfToken(
  env: Readonly<Record<string, string | undefined>>,
  dev: { readonly home: string; readonly tokens: TokenStore },
  token: string,
): Promise<ProofKey | undefined> {
  let chain: readonly TokenRecord[];
  try {
    // Only to find the record (and so the key file): the token itself is verified by the caller.
    const jti = decodeJwt(token).jti;
    chain = (typeof jti === 'string' ? await dev.tokens.readChain(jti) : null) ?? [];
  } catch {
    chain = [];
  }
  const head = chain[0];
  const bound = head?.boundKey ?? null;
  // A token of this SVC_HOME bound to no key needs no proof (one would be refused).
  if (head !== undefined && bound === null) return undefined;
  const named = env.SVC_TOKEN_KEY;
  if (named !== undefined && named !== '') {
    const key = await proofKey(await readJwkFile(named, 'SVC_TOKEN_KEY'), 'SVC_TOKEN_KEY');
    if (bound !== null && key.thumbprint !== bound)
      throw new AuthenticationError('bound', 'SVC_TOKEN_KEY is not the key the token is bound to');
    return key;
  }
  if (head === undefined) return undefined;
  // A child bound to its parent's key has no file of its own: the key is kept under the name of the token it was made for.
  for (const r of chain) {
    // A name as create allows it, never a path: a hand-edited record must not point outside SVC_HOME/keys.
    if (r.boundKey !== bound || !/^[A-Za-z0-9_-]{1,64}$/.test(r.name)) continue;
    const saved = await keyFile(dev.home, r.name).read();
    const key = saved === undefined ? undefined : await proofKey(saved, 'key file');
    if (key?.thumbprint === bound) return key;
  }
  throw new AuthenticationError(
    'bound',
    'the token is bound to a key and no key of it was found: set SVC_TOKEN_KEY to its private key file',
  );
}
