/**
 * What an issuer's `scope` (RFC 8693 / RFC 9068: one space-separated string) or `scp`
 * (Okta: an array; Entra ID: a space-separated string) claim grants here (T10), read
 * the way the issuer's `scopes` option says ({@link ScopeReading}). Every IdP writes
 * `openid profile email` into its tokens: those words say nothing about svc permissions,
 * so a claim made only of such words does not narrow. A word nobody here can read does
 * narrow (to the svc names beside it, maybe none): it may be a limit the IdP meant, and
 * dropping it would widen the token (fail closed; `ignoredScopes` says it means nothing).
 * @module
 */
import { PERMISSIONS, permissionIndex, type Permission } from '../../core/vocabulary';
import type { ScopeReading } from './types';

/** Longest list of words read from one claim; the token's 8 KiB cap bounds it anyway. */
const MAX_WORDS = 1024;
const ALL = (1 << PERMISSIONS.length) - 1;

/**
 * OpenID Connect Core's own scope values (section 5.4, 11): they ask for claims about the
 * user, never for access to an API, so they say nothing about svc permissions.
 *
 * @example
 * ```ts
 * OIDC_SCOPES.includes('profile'); // true: `openid profile email` does not narrow a session
 * ```
 */
export const OIDC_SCOPES: readonly string[] = Object.freeze(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

/** The `2^7` possible sets, each one frozen array, so that the same set is the same object. */
const INTERNED: readonly (readonly Permission[])[] = Array.from({ length: 1 << PERMISSIONS.length }, (_, mask) =>
  Object.freeze(PERMISSIONS.filter((_p, i) => (mask & (1 << i)) !== 0)),
);

/**
 * @internal the permission bits of `permissions` (svc permission names, already checked).
 *
 * @example
 * ```ts
 * maskOfPermissions(['repo:read']); // 1
 * ```
 */
export function maskOfPermissions(permissions: readonly string[]): number {
  let mask = 0;
  for (const p of permissions) {
    const i = permissionIndex(p);
    if (i >= 0) mask |= 1 << i;
  }
  return mask;
}

/** One claim's grant: `null` when it does not narrow; `undefined` when it is neither a string nor a list of strings. */
function maskOf(value: unknown, reading: ScopeReading): number | null | undefined {
  let words: readonly unknown[];
  if (typeof value === 'string') words = value.split(' ', MAX_WORDS);
  else if (Array.isArray(value) && value.length <= MAX_WORDS) words = value as unknown[];
  else return undefined;
  let mask = 0;
  let narrows = reading.strict;
  for (const w of words) {
    if (typeof w !== 'string') return undefined;
    // Empty words come from doubled spaces: nothing.
    if (w === '') continue;
    const mapped = reading.map.get(w);
    if (mapped !== undefined) {
      mask |= mapped;
      narrows = true;
      continue;
    }
    const i = permissionIndex(w);
    if (i >= 0) {
      mask |= 1 << i;
      narrows = true;
    } else if (!reading.ignored.has(w)) narrows = true;
  }
  return narrows ? mask : null;
}

/**
 * @internal The svc permissions a token's `scope` and `scp` claims grant, read as `reading`
 * says, with the claim that narrowed: `permissions` is `null` when neither narrows (absent,
 * `scopes: 'ignore'`, or only words that say nothing); when both narrow, only what both grant
 * (the narrower reading). `undefined` when a present claim is not a string or a list of strings
 * (even when ignored: a malformed token is refused, not read leniently).
 *
 * @example
 * ```ts
 * scopePermissions({ scope: 'openid repo:read' }, reading); // { permissions: ['repo:read'], claim: 'scope' }
 * scopePermissions({ scp: ['email'] }, reading);            // { permissions: null, claim: null }
 * scopePermissions({ scp: ['read:billing'] }, reading);     // { permissions: [], claim: 'scp' } (narrowed to nothing)
 * ```
 */
export function scopePermissions(
  claims: Readonly<Record<string, unknown>>,
  reading: ScopeReading,
): { readonly permissions: readonly Permission[] | null; readonly claim: 'scope' | 'scp' | 'scope and scp' | null } | undefined {
  let mask = ALL;
  const narrowed: ('scope' | 'scp')[] = [];
  for (const name of ['scope', 'scp'] as const) {
    if (!Object.hasOwn(claims, name)) continue;
    const m = maskOf(claims[name], reading);
    if (m === undefined) return undefined;
    if (m === null || reading.ignore) continue;
    mask &= m;
    narrowed.push(name);
  }
  if (narrowed.length === 0) return { permissions: null, claim: null };
  // Every mask has its set; were one missing, the claim is refused (undefined), never read as no scope.
  const permissions = INTERNED[mask];
  if (permissions === undefined) return undefined;
  return { permissions, claim: narrowed.length === 2 ? 'scope and scp' : (narrowed[0] as 'scope' | 'scp') };
}
