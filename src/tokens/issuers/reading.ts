/**
 * The parts of a trusted issuer's option that say how its tokens are read here (T10):
 * its `scope` claim (`scopes`, `ignoredScopes`), and whose user a token is (the derived
 * user id prefix, or `userId`). Checked with the rest of the option, when `createAuth`
 * builds the object.
 * @module
 */
import type { IssueInput } from '../../errors';
import { isPlainObject, PERMISSIONS } from '../../core/vocabulary';
import { maskOfPermissions, OIDC_SCOPES } from './scope';
import type { ScopeReading } from './types';

/** At most this many names in `ignoredScopes` or keys in a `scopes` map. */
const MAX_NAMES = 256;
// A scope name as RFC 6749 section 3.3 allows it (printable ASCII but space, `"` and `\`), bounded.
const SCOPE_NAME = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** How a `recorded` issuer's claim is read: any scope claim is the user's consent, and narrows. */
const CONSENT: ScopeReading = Object.freeze({ ignore: false, strict: true, map: new Map(), ignored: new Set<string>() });

function isScopeName(v: unknown): v is string {
  return typeof v === 'string' && SCOPE_NAME.test(v) && !FORBIDDEN_NAMES.has(v);
}

/**
 * @internal Check `scopes` and `ignoredScopes` of one issuer entry, adding problems to `issues`
 * under `at(field)`; returns how its claim is read (meaningless when an issue was added).
 *
 * @example
 * ```ts
 * const reading = checkScopeReading({ scopes: { 'read:repos': ['repo:read'] } }, false, at, issues);
 * reading.map.get('read:repos'); // 1
 * ```
 */
export function checkScopeReading(
  entry: Readonly<Record<string, unknown>>,
  recorded: boolean,
  at: (field: string) => (string | number)[],
  issues: IssueInput[],
): ScopeReading {
  const { scopes = 'narrow', ignoredScopes = [] } = entry;
  if (recorded) {
    if (scopes !== 'narrow')
      issues.push({ path: at('scopes'), message: "a recorded issuer's scope is the user's consent: it always narrows" });
    if (Object.hasOwn(entry, 'ignoredScopes')) issues.push({ path: at('ignoredScopes'), message: 'not for a recorded issuer' });
    return CONSENT;
  }
  const ignored = new Set<string>(OIDC_SCOPES);
  if (!Array.isArray(ignoredScopes) || ignoredScopes.length > MAX_NAMES || !ignoredScopes.every(isScopeName)) {
    issues.push({ path: at('ignoredScopes'), message: `must be a list of at most ${MAX_NAMES} scope names` });
  } else {
    for (const name of ignoredScopes) {
      // Ignoring an svc name would make a `repo:read` token as strong as the user: that is `scopes: 'ignore'`, said plainly.
      if ((PERMISSIONS as readonly string[]).includes(name)) {
        issues.push({ path: at('ignoredScopes'), message: `${name} is an svc permission: to disregard the claim, set scopes: 'ignore'` });
      }
      ignored.add(name);
    }
  }
  const map = new Map<string, number>();
  if (scopes === 'narrow' || scopes === 'ignore') {
    return Object.freeze({ ignore: scopes === 'ignore', strict: false, map, ignored });
  }
  if (!isPlainObject(scopes) || Object.keys(scopes).length > MAX_NAMES) {
    issues.push({
      path: at('scopes'),
      message: `must be 'narrow', 'ignore' or an object of at most ${MAX_NAMES} scope names, each to a list of svc permissions`,
    });
    return CONSENT;
  }
  for (const [name, perms] of Object.entries(scopes)) {
    const where = [...at('scopes'), name.slice(0, 64)];
    if (!isScopeName(name)) issues.push({ path: where, message: 'is not a scope name' });
    else if (ignored.has(name)) issues.push({ path: where, message: 'is also an ignored scope name' });
    if (!Array.isArray(perms) || perms.some((p: unknown) => typeof p !== 'string' || !(PERMISSIONS as readonly string[]).includes(p))) {
      issues.push({ path: where, message: `must be a list of svc permissions (${PERMISSIONS.join(', ')})` });
    } else map.set(name, maskOfPermissions(perms as string[]));
  }
  return Object.freeze({ ignore: false, strict: false, map, ignored });
}

/**
 * @internal What the user ids derived from `issuer`'s tokens start with: the issuer's host,
 * port and path, every character but letters, digits, `.` and `-` written `-`, then `_`.
 * A slug holds no `_`, so the first `_` of a derived id ends it: two issuers with different
 * slugs never derive the same id. Two that share one are refused when the option is checked.
 *
 * @example
 * ```ts
 * userIdPrefixOf('https://sso.example.com/realms/acme'); // 'sso.example.com-realms-acme_'
 * userIdPrefixOf('http://127.0.0.1:4000');               // '127.0.0.1-4000_'
 * ```
 */
export function userIdPrefixOf(issuer: string): string {
  const url = new URL(issuer);
  const where = `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  return `${where.replace(/[^A-Za-z0-9.-]/g, '-')}_`;
}
