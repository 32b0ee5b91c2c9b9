/**
 * A bounded cache of compiled grants, keyed on everything a grant is built
 * from: the token id (its chain, hence its scope layers, never changes) and the
 * exact roles just read. Roles and records are still read on every request
 * (T5); only the pure compilation of equal inputs is reused, so a changed role
 * is a different key and takes effect at once.
 * @module
 */
import { createGrant, type CompiledLayer, type Grant } from '../policy';
import type { UserRoles } from '../policy/types';
import { isRoleName } from '../vocabulary';

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Names made only of these characters cannot hold a delimiter (`=;|"`) and are
// used as they are; any other name is JSON-quoted, and a quoted name starts with
// `"`, which a bare one never does, so the two forms cannot collide.
const BARE_NAME = /^[A-Za-z0-9_.\/@:-]*$/;

/** `k=v;` over own keys of a plain object of role names, or `undefined` for anything unusual. */
function mapKey(value: unknown): string | undefined {
  if (!isPlain(value)) return undefined;
  let out = '';
  for (const k of Reflect.ownKeys(value)) {
    if (typeof k !== 'string') return undefined;
    const desc = Object.getOwnPropertyDescriptor(value, k);
    // Accessors could answer differently next time; leave such input to createGrant.
    if (desc === undefined || !('value' in desc) || !isRoleName(desc.value)) return undefined;
    out += `${BARE_NAME.test(k) ? k : JSON.stringify(k)}=${desc.value};`;
  }
  return out;
}

/**
 * Canonical text of a roles value, or `undefined` when it is anything but
 * plain data (getters, Proxies, class instances, unknown role names): such
 * input is never cached and goes to `createGrant`, which validates it.
 *
 * @example
 * ```ts
 * rolesKey({ orgs: { acme: 'editor' } }); // 'o:acme=editor;|r:-'
 * ```
 */
export function rolesKey(roles: unknown): string | undefined {
  try {
    if (!isPlain(roles)) return undefined;
    // An absent map is '-', which no map's text (empty or `k=v;…`) can be.
    let orgs = '-';
    let repos = '-';
    for (const k of Reflect.ownKeys(roles)) {
      if (k !== 'orgs' && k !== 'repos') return undefined;
      const desc = Object.getOwnPropertyDescriptor(roles, k);
      // A key present with a value undefined must not look like an absent key.
      if (desc === undefined || !('value' in desc) || desc.value === undefined) return undefined;
      const text = mapKey(desc.value);
      if (text === undefined) return undefined;
      if (k === 'orgs') orgs = text;
      else repos = text;
    }
    return `o:${orgs}|r:${repos}`;
  } catch {
    return undefined;
  }
}

/**
 * Grants by (token id, roles), at most `size` of them (oldest evicted first).
 *
 * @example
 * ```ts
 * const grants = new GrantCache(10_000);
 * const g = grants.get(record.id, roles, record, (r) => [layerOf(r)]);
 * ```
 */
export class GrantCache {
  readonly #size: number;
  readonly #map = new Map<string, Grant>();

  constructor(size: number) {
    this.#size = size;
  }

  /**
   * The grant for `roles` and the layers of `tokenId` (`null` for a session).
   * `layers(arg)` is only called on a miss (taking `arg` spares a closure per
   * request). Throws what `createGrant` throws.
   */
  get<A>(tokenId: string | null, roles: UserRoles, arg: A, layers: (arg: A) => CompiledLayer[]): Grant {
    const rk = this.#size > 0 ? rolesKey(roles) : undefined;
    if (rk === undefined) return createGrant({ roles, layers: layers(arg) });
    const key = `${tokenId ?? ''}\u0000${rk}`;
    let grant = this.#map.get(key);
    if (grant === undefined) {
      grant = createGrant({ roles, layers: layers(arg) });
      if (this.#map.size >= this.#size) this.#map.delete(this.#map.keys().next().value as string);
      this.#map.set(key, grant);
    }
    return grant;
  }
}
