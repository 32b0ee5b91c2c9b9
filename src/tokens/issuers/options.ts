/**
 * The `trustedIssuers` option, checked once when `createAuth` builds the object:
 * every problem of every entry is collected, so a deployment learns all of them at
 * start-up rather than one per restart or, worse, on the first request.
 * @module
 */
import type { IssueInput } from '../../errors';
import { isPlainObject } from '../../core/vocabulary';
import { serviceUrl } from '../../core/network';
import { parseShortDuration } from '../duration';
import { checkScopeReading, userIdPrefixOf } from './reading';
import type { IssuerAlgorithm, IssuerConfig } from './types';

/**
 * Every algorithm a trusted issuer may sign with, the default of `algorithms`.
 *
 * @example
 * ```ts
 * ISSUER_ALGORITHMS.includes('HS256' as never); // false: never HMAC, never none
 * ```
 */
export const ISSUER_ALGORITHMS: readonly IssuerAlgorithm[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
] as const);

/** At most this many trusted issuers: each costs a key set in memory and, cold, a fetch. */
export const MAX_TRUSTED_ISSUERS = 16;

const KEYS = [
  'issuer',
  'audience',
  'userIdClaim',
  'jwksUri',
  'jwks',
  'algorithms',
  'recorded',
  'scopes',
  'ignoredScopes',
  'userId',
  'maxTokenAge',
];
/** `maxTokenAge` by default, and its cap: an IdP's access token is short-lived; a day covers every real one. */
const MAX_TOKEN_AGE = Object.freeze({ defaultSec: 24 * 3600, maxSec: 30 * 24 * 3600 });
const MAX_URL = 1024;
/** At most this many keys in a trusted issuer's `jwks`: an issuer publishes a handful. */
const MAX_LOCAL_KEYS = 16;
// JWK members that hold a private or secret key (RFC 7518 6.2.2, 6.3.2, 6.4; RFC 8037 2).
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
// A claim name as IdPs write them, namespaced ones included (Auth0: `https://example.com/uid`);
// never one that reads a prototype member.
const CLAIM = /^[A-Za-z0-9_$][A-Za-z0-9_$.:/-]{0,255}$/;
const FORBIDDEN_CLAIMS = new Set(['__proto__', 'constructor', 'prototype']);
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * Why `value` may not name an issuer or its keys, or `undefined` when it may: a service
 * URL (https, or http on a loopback host, for local IdPs and tests; no credentials, no
 * fragment) without a query. These rules also apply to the `jwks_uri` a discovery
 * document names.
 *
 * @example
 * ```ts
 * urlProblem('https://sso.example.com/realms/acme'); // undefined
 * urlProblem('http://sso.example.com');              // 'must use https unless its host is a loopback address'
 * ```
 */
export function urlProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > MAX_URL) return `must be a URL of at most ${MAX_URL} characters`;
  const url = serviceUrl(value);
  if (typeof url === 'string') return url;
  if (url.search !== '' || String(value).includes('?')) return 'must not have a query';
  return undefined;
}

/** Why `value` may not be a trusted issuer's `jwks`, or `undefined` when it may: public keys only, a bounded count. */
function jwksProblemOf(value: unknown): string | undefined {
  const keys = isPlainObject(value) ? (value as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_LOCAL_KEYS) {
    return `must be { keys: [...] } with 1 to ${MAX_LOCAL_KEYS} public JWKs`;
  }
  for (const key of keys as unknown[]) {
    if (!isPlainObject(key) || typeof (key as { kty?: unknown }).kty !== 'string') return 'each key must be a JWK object with a kty';
    // A private key here would be a secret copied into every process that trusts the issuer.
    if (PRIVATE_MEMBERS.some((m) => Object.hasOwn(key, m))) return 'must hold public keys only (a key has a private member)';
  }
  return undefined;
}

/**
 * @internal Check `createAuth`'s `trustedIssuers` (`undefined`: none), adding every
 * problem to `issues` at `trustedIssuers[i].<field>`; `ownIssuer` is the instance's own
 * `issuer`, which may not be trusted as a foreign one. Returns the checked entries
 * (meaningless when an issue was added).
 *
 * @example
 * ```ts
 * const issues: IssueInput[] = [];
 * const list = checkTrustedIssuers([{ issuer: 'https://idp.example', audience: 'api' }], 'https://svc.example', issues);
 * list[0]?.userIdClaim; // 'sub'
 * ```
 */
export function checkTrustedIssuers(value: unknown, ownIssuer: unknown, issues: IssueInput[]): readonly IssuerConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push({ path: ['trustedIssuers'], message: 'must be an array of { issuer, audience, ... } (docs/identity-providers.md)' });
    return [];
  }
  if (value.length > MAX_TRUSTED_ISSUERS) {
    issues.push({ code: 'too_big', path: ['trustedIssuers'], message: `at most ${MAX_TRUSTED_ISSUERS} trusted issuers` });
    return [];
  }
  const out: IssuerConfig[] = [];
  const seen = new Set<string>();
  value.forEach((entry: unknown, i) => {
    const at = (field?: string): (string | number)[] => (field === undefined ? ['trustedIssuers', i] : ['trustedIssuers', i, field]);
    if (!isPlainObject(entry)) {
      issues.push({ path: at(), message: 'must be an object { issuer, audience, ... } (docs/identity-providers.md)' });
      return;
    }
    const before = issues.length;
    for (const key of Reflect.ownKeys(entry)) {
      if (typeof key !== 'string' || !KEYS.includes(key))
        issues.push({ code: 'unrecognized_keys', path: at(String(key).slice(0, 64)), message: 'unknown option' });
    }
    const {
      issuer,
      audience,
      userIdClaim = 'sub',
      jwksUri,
      jwks,
      algorithms = ISSUER_ALGORITHMS,
      recorded = false,
      userId,
      maxTokenAge,
    } = entry;
    if (typeof recorded !== 'boolean') issues.push({ path: at('recorded'), message: 'must be a boolean' });
    const scopes = checkScopeReading(entry, recorded === true, at, issues);
    if (userId !== undefined) {
      if (typeof userId !== 'function') issues.push({ path: at('userId'), message: 'must be a function (claims) => user id' });
      else if (recorded === true)
        issues.push({ path: at('userId'), message: "not for a recorded issuer: its sub is this service's user id" });
      else if (Object.hasOwn(entry, 'userIdClaim')) issues.push({ path: at('userId'), message: 'give userIdClaim or userId, not both' });
    }
    let maxTokenAgeSec = MAX_TOKEN_AGE.defaultSec;
    try {
      maxTokenAgeSec = parseShortDuration(maxTokenAge as string | undefined, MAX_TOKEN_AGE);
    } catch {
      issues.push({ path: at('maxTokenAge'), message: 'must be <N>d, <N>h or <N>m, at most 30d' });
    }
    const issuerProblem = urlProblem(issuer);
    if (issuerProblem !== undefined) issues.push({ path: at('issuer'), message: issuerProblem });
    else if (issuer === ownIssuer) {
      issues.push({
        path: at('issuer'),
        message: "is this instance's own issuer: its tokens are verified with its own keys, not trusted as an identity provider's",
      });
    } else if (seen.has(issuer as string)) {
      issues.push({ code: 'duplicate', path: at('issuer'), message: 'is listed twice' });
    } else seen.add(issuer as string);
    if (typeof audience !== 'string' || audience.length === 0 || audience.length > MAX_URL || !PRINTABLE.test(audience)) {
      issues.push({ path: at('audience'), message: `is required: 1 to ${MAX_URL} printable characters without spaces` });
    }
    if (typeof userIdClaim !== 'string' || !CLAIM.test(userIdClaim) || FORBIDDEN_CLAIMS.has(userIdClaim)) {
      issues.push({ path: at('userIdClaim'), message: 'must be a claim name such as sub, oid or https://example.com/uid' });
    }
    const jwksProblem = jwksUri === undefined ? undefined : urlProblem(jwksUri);
    if (jwksProblem !== undefined) issues.push({ path: at('jwksUri'), message: jwksProblem });
    const localProblem = jwks === undefined ? undefined : jwksProblemOf(jwks);
    if (localProblem !== undefined) issues.push({ path: at('jwks'), message: localProblem });
    else if (jwks !== undefined && jwksUri !== undefined) issues.push({ path: at('jwks'), message: 'give jwks or jwksUri, not both' });
    if (
      !Array.isArray(algorithms) ||
      algorithms.length === 0 ||
      algorithms.some((a: unknown) => !(ISSUER_ALGORITHMS as readonly unknown[]).includes(a))
    ) {
      issues.push({ path: at('algorithms'), message: `must be a non-empty list of ${ISSUER_ALGORITHMS.join(', ')}` });
    }
    if (issues.length !== before) return;
    const derives = recorded !== true && userId === undefined;
    const userIdPrefix = derives ? userIdPrefixOf(issuer as string) : null;
    const clash = userIdPrefix === null ? -1 : out.findIndex((c) => c.userIdPrefix === userIdPrefix);
    if (clash >= 0) {
      issues.push({
        path: at('issuer'),
        message: `derives the same user ids as trustedIssuers[${clash}] (${userIdPrefix}...): give one of them a userId function`,
      });
      return;
    }
    out.push(
      Object.freeze({
        issuer: issuer as string,
        audience: audience as string,
        userIdClaim: userIdClaim as string,
        jwksUri: jwksUri === undefined ? null : new URL(jwksUri as string),
        // A copy: the caller's object changed later must not change the keys trusted.
        jwks:
          jwks === undefined
            ? null
            : Object.freeze({ keys: Object.freeze(structuredClone((jwks as { keys: Record<string, unknown>[] }).keys)) }),
        algorithms: Object.freeze([...new Set(algorithms as IssuerAlgorithm[])]),
        recorded: recorded === true,
        scopes,
        userId: derives ? null : ((userId as IssuerConfig['userId']) ?? null),
        userIdPrefix,
        maxTokenAgeSec,
      }),
    );
  });
  return Object.freeze(out);
}
