/**
 * The synchronous heart of the bundled token stores: records indexed by id, by
 * owner (creation order, plus PAT names) and by parent, so that no operation
 * walks every record. {@link MemoryTokenStore} keeps one table for its lifetime;
 * the file store loads one per locked read-modify-write. Every method runs to
 * completion without yielding, which is what makes the store operations atomic.
 * @module
 */
import { ConflictError, ValidationError } from '../errors';
import { timeOf, toEntry, toRecord, type DateForm, type Entry } from './record-codec';
import type { Scope } from '../core/scopes';
import type { InsertResult, TokenRecord } from './types';
import { checkMark, checkUses, dueForWarning, mergeUsedFrom } from './usage';
import { checkPurge, pickPurge, removeFrom } from './purge';
import { Row } from './row';
import { RecordViews } from './views';

interface OwnerIndex {
  /** The owner id, shared by all of the owner's entries. */
  readonly ownerId: string;
  /** Ids in creation order (replaced, not edited, when a purge removes some). */
  ids: string[];
  /** PAT ids per name; a single id is kept bare to save an array per record. */
  readonly pats: Map<string, string | string[]>;
}

/**
 * @internal See the module comment.
 *
 * @example
 * ```ts
 * const table = new TokenTable();
 * table.insert(record, now); // 'ok'
 * table.readChain(record.id);
 * ```
 */
export class TokenTable {
  private readonly byId = new Map<string, Entry>();
  private readonly byOwner = new Map<string, OwnerIndex>();
  private readonly children = new Map<string, string | string[]>();
  // Most tokens repeat a few scope lists; sharing one frozen copy saves about
  // 300 bytes per record. Capped so that all-distinct lists cannot double memory.
  private readonly scopeLists = new Map<string, readonly Scope[]>();
  // Made on the first shared read: a table the file store loads per operation never needs one.
  private views: RecordViews | undefined;

  /** The stored entry of `id`, for the governance changes (org-table.ts). */
  entry(id: string): Entry | undefined {
    return this.byId.get(id);
  }

  /** Number of records held. */
  get size(): number {
    return this.byId.size;
  }

  /** Check and copy `raw`, then apply the insert rules of `TokenStore.insert`. */
  insert(raw: unknown, now: Date, form: DateForm = 'date'): InsertResult {
    const entry = toEntry(raw, form, 'record');
    const nowMs = timeOf(now, 'now');
    if (this.byId.has(entry.id)) throw new ConflictError('a token record with this id already exists');
    if (entry.parentId !== null) {
      const parent = this.byId.get(entry.parentId);
      if (parent === undefined || !isActive(parent, nowMs)) return 'parent_inactive';
    }
    if (entry.kind === 'pat' && this.activePatNamed(entry.ownerId, entry.name, nowMs)) return 'name_taken';
    this.add(entry);
    return 'ok';
  }

  /**
   * Add a record without the insert rules: used when loading a file, where the
   * rules held when each record was first inserted. A repeated id means the file
   * was edited by hand and is refused.
   */
  load(raw: unknown, path: string): void {
    const entry = toEntry(raw, 'iso', path);
    if (this.byId.has(entry.id)) throw new ValidationError([{ path: `${path}.id`, message: 'repeated id' }]);
    this.add(entry);
  }

  readChain(id: unknown): TokenRecord[] | null {
    if (typeof id !== 'string') throw new ValidationError([{ path: 'id', message: 'expected a string' }]);
    return this.chainOf(id, toRecord);
  }

  /**
   * `readChain` for the service's request path: the same chain as shared frozen
   * views (see views.ts), which the caller must only read and never hand on.
   */
  readChainShared(id: string): TokenRecord[] | null {
    const views = (this.views ??= new RecordViews(MAX_VIEWS));
    return this.chainOf(id, (entry) => views.of(entry));
  }

  /** The record of `id` and its ancestors, each made by `make`; `null` when `id` is unknown. */
  private chainOf(id: string, make: (entry: Entry) => TokenRecord): TokenRecord[] | null {
    let entry = this.byId.get(id);
    if (entry === undefined) return null;
    const chain: TokenRecord[] = [make(entry)];
    // A loaded file could hold a parent cycle; the seen set keeps the walk finite.
    // Most chains are a single record: the set is only made for a parent.
    let seen: Set<string> | undefined;
    while (entry.parentId !== null) {
      seen ??= new Set<string>([entry.id]);
      const parent = this.byId.get(entry.parentId);
      if (parent === undefined || seen.has(parent.id)) break;
      seen.add(parent.id);
      chain.push(make(parent));
      entry = parent;
    }
    return chain;
  }

  listByOwner(ownerId: unknown): TokenRecord[] {
    if (typeof ownerId !== 'string') throw new ValidationError([{ path: 'ownerId', message: 'expected a string' }]);
    const owner = this.byOwner.get(ownerId);
    if (owner === undefined) return [];
    const out: TokenRecord[] = [];
    for (const id of owner.ids) {
      const entry = this.byId.get(id);
      if (entry !== undefined) out.push(toRecord(entry));
    }
    return out;
  }

  revoke(ids: unknown, at: Date): string[] {
    if (!Array.isArray(ids) || !ids.every((id: unknown) => typeof id === 'string')) {
      throw new ValidationError([{ path: 'ids', message: 'expected an array of strings' }]);
    }
    const atMs = timeOf(at, 'at');
    const revoked: string[] = [];
    const seen = new Set<string>();
    const stack: string[] = [...ids].reverse();
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      const entry = this.byId.get(id);
      if (entry === undefined) continue;
      if (entry.revokedAt === null) {
        entry.revokedAt = atMs;
        revoked.push(id);
      }
      // Walk on even below a record already revoked: its subtree must end up revoked too.
      const kids = this.children.get(id);
      if (typeof kids === 'string') stack.push(kids);
      else if (kids !== undefined) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as string);
    }
    return revoked;
  }

  /**
   * Move `lastUsedAt` of each known id forward to `at` (never back). Unknown ids
   * are ignored. Returns how many records changed.
   */
  touch(ids: unknown, at: Date): number {
    if (!Array.isArray(ids) || !ids.every((id: unknown) => typeof id === 'string')) {
      throw new ValidationError([{ path: 'ids', message: 'expected an array of strings' }]);
    }
    const atMs = timeOf(at, 'at');
    let changed = 0;
    for (const id of ids) {
      const entry = this.byId.get(id);
      if (entry !== undefined && (entry.lastUsedAt === null || entry.lastUsedAt < atMs)) {
        entry.lastUsedAt = atMs;
        changed++;
      }
    }
    return changed;
  }

  /**
   * Apply uses with their addresses (see `TokenStore.recordUse`). Unknown ids
   * are ignored. Returns how many records changed.
   */
  recordUse(uses: unknown, at: Date): number {
    const list = checkUses(uses);
    const atMs = timeOf(at, 'at');
    let changed = 0;
    for (const use of list) {
      const entry = this.byId.get(use.id);
      if (entry === undefined) continue;
      let moved = false;
      if (entry.lastUsedAt === null || entry.lastUsedAt < atMs) {
        entry.lastUsedAt = atMs;
        moved = true;
      }
      if (use.address !== null && mergeUsedFrom(entry, use.address, use.userAgent, atMs)) moved = true;
      if (moved) changed++;
    }
    return changed;
  }

  /**
   * Claim the expiry warning of `withinSec` for up to `limit` records (see
   * `TokenStore.markExpiring`): marked here, returned soonest expiry first.
   * A scan of every record: a sweep runs every few minutes, not per request.
   */
  markExpiring(withinSec: unknown, now: Date, limit: unknown): TokenRecord[] {
    const m = checkMark(withinSec, now, limit);
    const due: Entry[] = [];
    for (const e of this.byId.values()) if (dueForWarning(e, m.withinSec, m.nowMs)) due.push(e);
    due.sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const picked = due.slice(0, m.limit);
    for (const e of picked) e.expiryWarnings = Object.freeze([...e.expiryWarnings, m.withinSec]);
    return picked.map(toRecord);
  }

  /**
   * Remove ended sessions with their subtrees (see `TokenStore.purgeSessions`
   * and purge.ts); returns how many records went. A scan of every record: a
   * purge runs on a timer, not per request.
   */
  purgeSessions(cutoff: Date, limit: unknown): number {
    const { cutoffMs, limit: max } = checkPurge(cutoff, limit);
    const kidsOf = (id: string): readonly string[] => {
      const kids = this.children.get(id);
      return kids === undefined ? [] : typeof kids === 'string' ? [kids] : kids;
    };
    const doomed = pickPurge(this.byId.values(), cutoffMs, max, kidsOf, (id) => this.byId.get(id));
    const owners = new Set<string>();
    for (const id of doomed) {
      const e = this.byId.get(id) as Entry;
      this.byId.delete(id);
      this.children.delete(id);
      this.views?.forget(id);
      owners.add(e.ownerId);
      if (e.parentId !== null && !doomed.has(e.parentId)) removeFrom(this.children, e.parentId, id);
    }
    // Sessions hold no PAT names: only the owners' id lists change, each filtered once.
    for (const ownerId of owners) {
      const owner = this.byOwner.get(ownerId) as OwnerIndex;
      owner.ids = owner.ids.filter((id) => !doomed.has(id));
      if (owner.ids.length === 0) this.byOwner.delete(ownerId);
    }
    return doomed.size;
  }

  /** Every entry in creation order (insertion order of the id map). */
  entries(): IterableIterator<Entry> {
    return this.byId.values();
  }

  private activePatNamed(ownerId: string, name: string, nowMs: number): boolean {
    const ids = this.byOwner.get(ownerId)?.pats.get(name);
    if (ids === undefined) return false;
    for (const id of typeof ids === 'string' ? [ids] : ids) {
      const e = this.byId.get(id);
      if (e !== undefined && isActive(e, nowMs)) return true;
    }
    return false;
  }

  private add(fresh: Entry): void {
    let owner = this.byOwner.get(fresh.ownerId);
    if (owner === undefined) {
      owner = { ownerId: fresh.ownerId, ids: [], pats: new Map() };
      this.byOwner.set(fresh.ownerId, owner);
    }
    const parent = fresh.parentId === null ? undefined : this.byId.get(fresh.parentId);
    const entry = new Row(fresh, owner.ownerId, parent?.id ?? fresh.parentId, this.shareScopes(fresh.scopes));
    this.byId.set(entry.id, entry);
    owner.ids.push(entry.id);
    if (entry.kind === 'pat') addTo(owner.pats, entry.name, entry.id);
    if (entry.parentId !== null) addTo(this.children, entry.parentId, entry.id);
  }

  private shareScopes(scopes: readonly Scope[] | null): readonly Scope[] | null {
    if (scopes === null) return null;
    const key = JSON.stringify(scopes);
    const known = this.scopeLists.get(key);
    if (known !== undefined) return known;
    if (this.scopeLists.size < MAX_SHARED_SCOPE_LISTS) this.scopeLists.set(key, scopes);
    return scopes;
  }
}

const MAX_SHARED_SCOPE_LISTS = 4096;
// Views kept for the request path: the hot tokens of a busy server (about 500 bytes each).
const MAX_VIEWS = 10_000;

function addTo(map: Map<string, string | string[]>, key: string, id: string): void {
  const cur = map.get(key);
  if (cur === undefined) map.set(key, id);
  else if (typeof cur === 'string') map.set(key, [cur, id]);
  else cur.push(id);
}

/** Active at `nowMs`: not revoked and not yet expired (T4: expired once now >= expiresAt). */
function isActive(e: Entry, nowMs: number): boolean {
  return e.revokedAt === null && e.expiresAt > nowMs;
}
