/**
 * Which scopes a cached layer or grant was built from, and whether a record
 * just read still has them. The caches of `authenticate` are keyed by token
 * id, but a record's scopes are only as fixed as its store keeps them: a row
 * edited by hand in PostgreSQL (`UPDATE … SET scopes = …`) is read in full
 * again by the store, and the caches must then see the new scopes on the very
 * next request, not after a restart.
 *
 * The check costs one comparison per record when the store hands back the
 * same deep-frozen scopes while a record is unchanged (the memory store does;
 * the PostgreSQL store does while the row version, `xmin`, is the one it read).
 * Any other object is compared by value, once; when equal and deep-frozen it
 * is adopted, so the next request is one comparison again. A store that makes
 * new arrays per read (the file store parses its file afresh) pays the value
 * comparison per request, still far below compiling the scopes again. A value
 * that is not frozen is never trusted by identity: its owner could change it
 * in place after it was compared.
 * @module
 */
import type { Scope } from '../../../core/scopes';

/** A record's scopes as a record carries them: `null` is the owner's full access. */
export type RecordScopes = readonly Scope[] | null;

const KEYS = new Set(['resource', 'permissions', 'allowedMatches']);

/** Equal lists of strings (permissions, patterns); `undefined` only equals `undefined`. */
function sameStrings(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string' || a[i] !== b[i]) return false;
  return true;
}

function sameEntry(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!KEYS.has(k) || !Object.hasOwn(b, k)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return x.resource === y.resource && sameStrings(x.permissions, y.permissions) && sameStrings(x.allowedMatches, y.allowedMatches);
}

/**
 * Do `a` and `b` say the same, entry by entry, field by field (what
 * `compileLayer` reads)? Anything odd (a throwing getter, an unknown key, a
 * value that is not a list of strings) is "not the same", which sends the
 * record through compilation and its validation again. Never throws.
 *
 * @example
 * ```ts
 * sameScopes([{ resource: 'acme/web', permissions: ['repo:read'] }], [{ resource: 'acme/web', permissions: ['repo:read'] }]); // true
 * sameScopes(null, []); // false: full access is not an empty layer
 * ```
 */
export function sameScopes(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameEntry(a[i], b[i])) return false;
    return true;
  } catch {
    return false;
  }
}

function frozenStrings(v: unknown): boolean {
  return v === undefined || (Array.isArray(v) && Object.isFrozen(v));
}

/**
 * Are `scopes`, their entries and their lists all frozen, so that the same
 * object can never say something else later? (A Proxy over a frozen target
 * must answer as its target: the language enforces it.) Never throws.
 *
 * @example
 * ```ts
 * isDeepFrozen(record.scopes); // true for every store of this library
 * ```
 */
export function isDeepFrozen(scopes: RecordScopes): boolean {
  if (scopes === null) return true;
  try {
    if (!Object.isFrozen(scopes)) return false;
    for (const e of scopes) {
      if (!Object.isFrozen(e) || !frozenStrings(e.permissions) || !frozenStrings(e.allowedMatches)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * A record's scopes as a cache may keep them to compare with later reads: the
 * object itself when deep-frozen, else a deep-frozen copy (taken once, when a
 * cache entry is made). Call it only with scopes that compiled.
 *
 * @example
 * ```ts
 * const kept = pinScopes(record.scopes);
 * sameScopes(kept, record.scopes); // true
 * ```
 */
export function pinScopes(scopes: RecordScopes): RecordScopes {
  if (isDeepFrozen(scopes)) return scopes;
  const list = scopes as readonly Scope[];
  // Own keys as they are (compiled scopes have no others than KEYS), so the copy compares equal.
  return Object.freeze(
    list.map((e) => {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(e)) {
        const v: unknown = (e as unknown as Record<string, unknown>)[k];
        out[k] = Array.isArray(v) ? Object.freeze([...(v as unknown[])]) : v;
      }
      return Object.freeze(out) as unknown as Scope;
    }),
  );
}
