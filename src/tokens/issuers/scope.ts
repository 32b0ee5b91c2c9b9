/**
 * What an issuer's `scope` (RFC 8693 / RFC 9068: one space-separated string) or `scp`
 * (Okta: an array; Entra ID: a space-separated string) claim grants here: the svc
 * permission names in it, and nothing else. Other words (`openid`, `email`,
 * `api://x/read`) are ignored; a claim with no svc permission grants nothing.
 * @module
 */
import { PERMISSIONS, permissionIndex, type Permission } from '../../core/vocabulary';

/** Longest list of words read from one claim; the token's 8 KiB cap bounds it anyway. */
const MAX_WORDS = 1024;

/** The `2^7` possible sets, each one frozen array, so that the same set is the same object. */
const INTERNED: readonly (readonly Permission[])[] = Array.from({ length: 1 << PERMISSIONS.length }, (_, mask) =>
  Object.freeze(PERMISSIONS.filter((_p, i) => (mask & (1 << i)) !== 0)),
);

/** The permission bits in one claim's value; `undefined` when it is neither a string nor an array of strings. */
function maskOf(value: unknown): number | undefined {
  let words: readonly unknown[];
  if (typeof value === 'string') words = value.split(' ', MAX_WORDS);
  else if (Array.isArray(value) && value.length <= MAX_WORDS) words = value as unknown[];
  else return undefined;
  let mask = 0;
  for (const w of words) {
    if (typeof w !== 'string') return undefined;
    const i = permissionIndex(w);
    if (i >= 0) mask |= 1 << i;
  }
  return mask;
}

/**
 * @internal The svc permissions a token's `scope` and `scp` claims grant: `null` when it
 * has neither (it is not narrowed); when it has both, only what both grant (the narrower
 * reading). `undefined` when a present claim is not a string or a list of strings.
 *
 * @example
 * ```ts
 * scopePermissions({ scope: 'openid repo:read' });  // ['repo:read']
 * scopePermissions({ scp: ['email'] });             // [] (narrowed to nothing)
 * scopePermissions({});                             // null
 * ```
 */
export function scopePermissions(claims: Readonly<Record<string, unknown>>): readonly Permission[] | null | undefined {
  const hasScope = Object.hasOwn(claims, 'scope');
  const hasScp = Object.hasOwn(claims, 'scp');
  if (!hasScope && !hasScp) return null;
  let mask = (1 << PERMISSIONS.length) - 1;
  for (const [present, value] of [
    [hasScope, claims['scope']],
    [hasScp, claims['scp']],
  ] as const) {
    if (!present) continue;
    const m = maskOf(value);
    if (m === undefined) return undefined;
    mask &= m;
  }
  // Every mask has its set; were one missing, the claim is refused (undefined), never read as no scope.
  return INTERNED[mask];
}
