/**
 * Pure helpers over token records: derived status (T4), the management views
 * (`TokenInfo`, `SessionInfo`), which records a credential manages (M1, M2),
 * and which record a name designates (T7).
 * @module
 */
import type { TokenRecord, UsedFrom } from '../../stores';
import type { SessionInfo } from '../contract';
import type { LastUse, TokenInfo } from '../contract';
import { inheritedAccess } from '../orgs';

/**
 * Status derived when read (T4): `revoked` if revokedAt is set, else `expired`
 * once now >= expiresAt, else `active`.
 *
 * @example
 * ```ts
 * statusOf(record, Date.now()); // 'active'
 * ```
 */
export function statusOf(record: TokenRecord, nowMs: number): TokenInfo['status'] {
  if (record.revokedAt !== null) return 'revoked';
  return nowMs >= record.expiresAt.getTime() ? 'expired' : 'active';
}

/**
 * The management view of a record, frozen. Carries no token value (T8).
 * `ancestors` (nearest first) add the org access it inherits (G3).
 *
 * @example
 * ```ts
 * const info = toInfo(record, Date.now());
 * info.status; // 'active'
 * ```
 */
export function toInfo(record: TokenRecord, nowMs: number, ancestors: readonly TokenRecord[] = []): TokenInfo {
  return Object.freeze({
    id: record.id,
    name: record.name,
    description: record.description,
    status: statusOf(record, nowMs),
    scopes: record.scopes === null ? null : [...record.scopes],
    createdAt: new Date(record.createdAt.getTime()),
    expiresAt: new Date(record.expiresAt.getTime()),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt.getTime()),
    committerIdentity: record.committerIdentity,
    parentId: record.parentId,
    lastUsedAt: record.lastUsedAt instanceof Date ? new Date(record.lastUsedAt.getTime()) : null,
    lastUsed: lastUseOf(record),
    usedFrom: usedFromOf(record),
    allowedIps: record.allowedIps == null ? null : [...record.allowedIps],
    boundKey: record.boundKey ?? null,
    orgAccess: inheritedAccess(record, ancestors).map((e) =>
      Object.freeze({
        org: e.org,
        status: e.status,
        reason: e.reason,
        decidedBy: e.decidedBy,
        decidedAt: e.decidedAt === null ? null : new Date(e.decidedAt.getTime()),
      }),
    ),
  });
}

/**
 * The last use of a record: its time, and the address and user agent of the
 * `usedFrom` entry of that very time (a use recorded without an address, or
 * by a store without `recordUse`, has neither).
 */
function lastUseOf(record: TokenRecord): LastUse | null {
  const at = record.lastUsedAt;
  if (!(at instanceof Date)) return null;
  const newest = record.usedFrom?.[0];
  const same = newest !== undefined && newest.at.getTime() === at.getTime();
  return { at: new Date(at.getTime()), address: same ? newest.address : null, userAgent: same ? newest.userAgent : null };
}

/** The `usedFrom` entries of a record, copied (the view never shares the record's dates). */
function usedFromOf(record: TokenRecord): UsedFrom[] {
  return (record.usedFrom ?? []).map((u) => ({ address: u.address, at: new Date(u.at.getTime()), userAgent: u.userAgent }));
}

/**
 * The view of a session record that `client(p).sessions` shows, frozen; `currentId`
 * is the id of the caller's own session, if it has one.
 *
 * @example
 * ```ts
 * toSessionInfo(record, Date.now(), p.tokenId).current; // true for the caller's own session
 * ```
 */
export function toSessionInfo(record: TokenRecord, nowMs: number, currentId: string | undefined): SessionInfo {
  return Object.freeze({
    id: record.id,
    name: record.name,
    description: record.description,
    status: statusOf(record, nowMs),
    createdAt: new Date(record.createdAt.getTime()),
    expiresAt: new Date(record.expiresAt.getTime()),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt.getTime()),
    lastUsedAt: record.lastUsedAt instanceof Date ? new Date(record.lastUsedAt.getTime()) : null,
    lastUsed: lastUseOf(record),
    usedFrom: usedFromOf(record),
    current: record.id === currentId,
  });
}

/**
 * The PAT records a credential manages, in creation order: every PAT of the
 * owner for a session (M1), or the descendant subtree of `rootId`, without the
 * root itself, for a PAT (M2). Component and session records are never managed
 * as tokens (sessions have `client(p).sessions`).
 *
 * @example
 * ```ts
 * managedRecords(await store.listByOwner('alice'), null);      // a session's view
 * managedRecords(await store.listByOwner('alice'), p.tokenId); // a PAT's view
 * ```
 */
export function managedRecords(all: readonly TokenRecord[], rootId: string | null): TokenRecord[] {
  const pats = all.filter((r) => r.kind === 'pat');
  if (rootId === null) return pats;
  // Records come in creation order and a parent exists before its child, but
  // do not rely on it: grow the subtree until it stops changing.
  const inside = new Set<string>([rootId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of pats) {
      if (!inside.has(r.id) && r.parentId !== null && inside.has(r.parentId)) {
        inside.add(r.id);
        grew = true;
      }
    }
  }
  return pats.filter((r) => r.id !== rootId && inside.has(r.id));
}

/**
 * The record `get(name)` shows (T7): the active token of that name, else the
 * newest. `undefined` when there is none.
 *
 * @example
 * ```ts
 * pickForGet(managed, 'ci', Date.now());
 * ```
 */
export function pickForGet(records: readonly TokenRecord[], name: string, nowMs: number): TokenRecord | undefined {
  const named = records.filter((r) => r.name === name);
  return named.find((r) => statusOf(r, nowMs) === 'active') ?? named[named.length - 1];
}

/**
 * The record `revoke(name)` acts on (T7): the newest non-revoked one (an expired
 * token can still be revoked, which records the intent for audit), else the
 * newest. `undefined` when there is none.
 *
 * @example
 * ```ts
 * pickForRevoke(managed, 'ci');
 * ```
 */
export function pickForRevoke(records: readonly TokenRecord[], name: string): TokenRecord | undefined {
  const named = records.filter((r) => r.name === name);
  for (let i = named.length - 1; i >= 0; i--) {
    const r = named[i] as TokenRecord;
    if (r.revokedAt === null) return r;
  }
  return named[named.length - 1];
}
