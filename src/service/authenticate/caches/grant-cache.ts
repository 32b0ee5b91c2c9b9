/**
 * A bounded cache of compiled grants, keyed on everything a grant is built
 * from: the token id, the scopes of each record of its chain (a record edited
 * by hand in its store is a different key, see scopes-pin.ts), and the exact
 * roles just read, compared field by field with a snapshot of the roles the
 * grant was built from (no key text is built or hashed per request). Roles and
 * records are still read on every request (T5); only the pure compilation of
 * equal inputs is reused, so a changed role or scope takes effect at once.
 * @module
 */
import { compileLayer, createGrant, type CompiledLayer, type Grant, type OrgGate, type UserRoles } from '../../../core/policy';
import { sameGates } from '../../orgs';
import type { Scope } from '../../../core/scopes';
import { isRoleName } from '../../../core/vocabulary';
import { isDeepFrozen, pinScopes, sameScopes, type RecordScopes } from './scopes-pin';

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Annex B's `__lookupGetter__`: for an own key it answers from the property
 * itself, and unlike `getOwnPropertyDescriptor` it allocates no descriptor
 * object, which was a fifth of a hot `authenticate`.
 */
const lookupGetter =
  (Reflect.get(Object.prototype, '__lookupGetter__') as ((this: object, key: string) => unknown) | undefined) ??
  // A runtime without Annex B: the descriptor says the same, at the cost of an object.
  function (this: object, key: string): unknown {
    const desc = Object.getOwnPropertyDescriptor(this, key);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the getter is compared by identity, never called
    return desc === undefined || 'value' in desc ? undefined : (desc.get ?? null);
  };
/** A data property's value, or `NOT_DATA` for an accessor (it could answer differently next time). */
const NOT_DATA: unique symbol = Symbol('not data');
function dataValue(obj: object, key: string): unknown {
  // A setter-only accessor reads as undefined, which no role name or map is.
  return lookupGetter.call(obj, key) === undefined ? (obj as Record<string, unknown>)[key] : NOT_DATA;
}

/**
 * How `compare` reads `orgs` and `repos`. Taking a snapshot (that a grant is
 * then built and cached for) reads data properties only: a getter could answer
 * one thing to the snapshot and another to `createGrant`. Comparing with a
 * snapshot reads each once, as `createGrant` itself reads them: equal values
 * mean the cached grant, built from plain data equal to them, is the grant of
 * the roles this request read. Role entries are read as data on both paths,
 * as `createGrant` reads them (an accessor entry is never a role there).
 */
type Read = (obj: object, key: string) => unknown;
const plainValue: Read = (obj, key) => (obj as Record<string, unknown>)[key];

/**
 * Snapshot of plain role data: for each of `orgs`/`repos` present, in own-key
 * order, its name, its number of entries, then name and role of each entry.
 */
type Snapshot = readonly (string | number)[];

const ROLE_KEYS = ['orgs', 'repos'] as const;

/**
 * Compare `roles` with `snap`: `true` when `roles` is plain data equal to
 * what `snap` was taken from, `false` when it differs, `undefined` when it is
 * not plain data (getters, as `readTop` decides for `orgs` and `repos`;
 * accessor role entries; Proxies that lie, class instances, unknown role
 * names, extra keys) and must never be cached. It sees exactly what
 * `createGrant` reads: `orgs` and `repos` by name, the enumerable own keys of
 * each (`Object.keys`, as `createGrant` lists them; `Reflect.ownKeys` costs
 * ten times as much here and was a third of a hot `authenticate`).
 */
function compare(roles: unknown, snap: Snapshot | null, out: (string | number)[] | null, readTop: Read): boolean | undefined {
  if (!isPlain(roles)) return undefined;
  const top = Object.keys(roles);
  for (const k of top) if (k !== 'orgs' && k !== 'repos') return undefined;
  let i = 0;
  let same = true;
  for (const k of ROLE_KEYS) {
    const map = readTop(roles, k);
    if (map === undefined) {
      // A key present with a value undefined must not look like an absent key.
      if (top.includes(k)) return undefined;
      continue;
    }
    if (!isPlain(map)) return undefined;
    const keys = Object.keys(map);
    if (out !== null) out.push(k, keys.length);
    else if (same && (snap?.[i] !== k || snap[i + 1] !== keys.length)) same = false;
    i += 2;
    for (const name of keys) {
      const role = dataValue(map, name);
      if (!isRoleName(role)) return undefined;
      if (out !== null) out.push(name, role);
      else if (same && (snap?.[i] !== name || snap[i + 1] !== role)) same = false;
      i += 2;
    }
  }
  return same && (snap === null || i === snap.length);
}

/**
 * The snapshot the cache compares roles with, or `undefined` when `roles` is
 * anything but plain data: such input is never cached and goes to
 * `createGrant`, which validates it.
 *
 * @example
 * ```ts
 * rolesSnapshot({ orgs: { acme: 'editor' } }); // ['orgs', 1, 'acme', 'editor']
 * ```
 */
export function rolesSnapshot(roles: unknown): Snapshot | undefined {
  const out: (string | number)[] = [];
  try {
    return compare(roles, null, out, dataValue) === undefined ? undefined : out;
  } catch {
    return undefined;
  }
}

/**
 * Does `roles` equal the roles `snap` was taken from? `false` for anything
 * that is not plain data (see {@link rolesSnapshot}).
 *
 * @example
 * ```ts
 * sameRoles({ orgs: { acme: 'editor' } }, rolesSnapshot({ orgs: { acme: 'editor' } })!); // true
 * ```
 */
export function sameRoles(roles: unknown, snap: Snapshot): boolean {
  try {
    return compare(roles, snap, null, plainValue) === true;
  } catch {
    return false;
  }
}

/** Snapshots kept per token id: roles of one user rarely change, so a few suffice. */
const SLOTS_PER_TOKEN = 4;

interface Slot {
  readonly snap: Snapshot;
  readonly grant: Grant;
  /** The scopes of each record of the chain the grant was built from, pinned (an equal frozen list may replace one). */
  readonly scopes: RecordScopes[];
  /** The org gates the grant was built with: a grant is never served for other gates (G4). */
  readonly gates: Gates;
}

type Gates = Readonly<Record<string, OrgGate>> | null; // `null`: none

/** What the cache reads of a chain: each record's scopes, nearest first. */
type ScopedChain = readonly { readonly scopes: RecordScopes }[] | null;

/**
 * Does `chain` carry the scopes a slot was built from? One comparison per
 * record while the store hands back the same frozen lists; an equal frozen
 * list read from a changed row is adopted, so that stays true.
 */
function sameChainScopes(chain: ScopedChain, kept: RecordScopes[]): boolean {
  const n = chain === null ? 0 : chain.length;
  if (n !== kept.length) return false;
  for (let i = 0; i < n; i++) {
    const now = (chain as NonNullable<ScopedChain>)[i]?.scopes ?? null;
    const was = kept[i] as RecordScopes;
    if (now === was) continue;
    if (!sameScopes(now, was)) return false;
    if (isDeepFrozen(now)) kept[i] = now;
  }
  return true;
}

/**
 * Grants by (token id, chain scopes, roles, org gates), at most `size` of them (oldest token evicted first).
 *
 * @example
 * ```ts
 * const grants = new GrantCache(10_000);
 * const g = grants.get(chain[0].id, roles, chain, (c, scopes) => scopes.flatMap((s) => (s === null ? [] : [compileLayer(s)])));
 * ```
 */
export class GrantCache {
  readonly #size: number;
  // Sessions (no token id) under '', which no token id can be (an id '' is never cached).
  readonly #map = new Map<string, Slot[]>();
  #count = 0;

  constructor(size: number) {
    this.#size = size;
  }

  /** Grants held (each role variant of a token counts); never above the bound. */
  get size(): number {
    return this.#count;
  }

  /**
   * The grant for `roles` and the chain of `tokenId` (`null`, with a `null`
   * chain, for the roles alone: a session). `layers(chain, scopes)` is only called on a miss,
   * with each record's scopes as read once here (taking the chain spares a
   * closure per request). Throws what `createGrant` throws.
   */
  get<C extends ScopedChain>(
    tokenId: string | null,
    roles: UserRoles,
    chain: C,
    layers: (chain: C, scopes: readonly RecordScopes[]) => CompiledLayer[],
    gates: Gates = null,
  ): Grant {
    const key = tokenId === null || tokenId === '' ? '' : tokenId;
    const slots = tokenId === '' || this.#size === 0 ? undefined : this.#map.get(key);
    if (slots !== undefined) {
      for (const slot of slots)
        if (sameGates(gates, slot.gates) && sameRoles(roles, slot.snap) && sameChainScopes(chain, slot.scopes)) return slot.grant;
    }
    // A miss: read each record's scopes once, build from them and keep them.
    const read: RecordScopes[] = chain === null ? [] : chain.map((r) => r.scopes);
    const grant = createGrant(
      gates === null ? { roles, layers: layers(chain, read) } : { roles, layers: layers(chain, read), orgGates: gates },
    );
    if (this.#size === 0) return grant;
    const snap = tokenId === '' ? undefined : rolesSnapshot(roles);
    if (snap === undefined) return grant;
    const slot: Slot = { snap, grant, scopes: read.map(pinScopes), gates };
    if (slots === undefined) {
      while (this.#count >= this.#size && this.#evictOldest());
      this.#map.set(key, [slot]);
      this.#count++;
    } else if (slots.length >= SLOTS_PER_TOKEN) {
      slots.shift();
      slots.push(slot);
    } else {
      // Full: make room with another token's grants, never this token's list.
      if (this.#count >= this.#size && !this.#evictOldest(key)) return grant;
      slots.push(slot);
      this.#count++;
    }
    return grant;
  }

  #evictOldest(except?: string): boolean {
    for (const [k, s] of this.#map) {
      if (k === except) continue;
      this.#map.delete(k);
      this.#count -= s.length;
      return true;
    }
    return false;
  }
}

interface Held {
  /** The scopes the layer was compiled from, pinned (an equal frozen list may replace them). */
  scopes: RecordScopes;
  readonly layer: CompiledLayer;
}

/**
 * Compiled scope layers by token id and scopes, at most `size` of them (oldest
 * first out). A token's scopes are fixed when it is created (S9), but its
 * record is only as fixed as its store keeps it: a layer is reused only for
 * scopes equal to those it was compiled from (see scopes-pin.ts), so a record
 * edited by hand is compiled again on the next request.
 *
 * @example
 * ```ts
 * const layers = new LayerCache(10_000);
 * const layer = layers.get(record.id, record.scopes); // compiled once, then reused
 * ```
 */
export class LayerCache {
  readonly #size: number;
  readonly #map = new Map<string, Held>();

  constructor(size: number) {
    this.#size = size;
  }

  /** Layers held; never above the bound. */
  get size(): number {
    return this.#map.size;
  }

  /** The compiled layer of token `id`'s scopes (not null). Throws what `compileLayer` throws. */
  get(id: string, scopes: readonly Scope[]): CompiledLayer {
    const held = this.#map.get(id);
    if (held !== undefined) {
      if (held.scopes === scopes) return held.layer;
      if (sameScopes(scopes, held.scopes)) {
        if (isDeepFrozen(scopes)) held.scopes = scopes;
        return held.layer;
      }
    }
    const layer = compileLayer(scopes);
    if (this.#size === 0) return layer;
    if (held === undefined && this.#map.size >= this.#size) this.#map.delete(this.#map.keys().next().value as string);
    this.#map.set(id, { scopes: pinScopes(scopes), layer });
    return layer;
  }
}
