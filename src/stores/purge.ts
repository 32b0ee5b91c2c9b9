/**
 * @internal Which records `TokenStore.purgeSessions` removes, for the bundled
 * stores that hold their records in a table in memory (the memory and file
 * stores; PostgreSQL says the same in SQL). A session record that ended
 * (expired, or revoked) at or before the cutoff goes with its whole subtree,
 * so that no record is ever left whose parent is missing: the records under
 * an ended session are dead too (every chain through it is refused), and a
 * subtree that holds anything but sessions (a PAT, kept for audit) is kept
 * whole, the session with it.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import type { Entry } from './record-codec';

/** The most sessions (each with its subtree) one `purgeSessions` call removes. */
export const MAX_PURGE_LIMIT = 10_000;

/**
 * @internal Check the arguments of `purgeSessions` (throws `ValidationError`).
 *
 * @example
 * ```ts
 * const { cutoffMs, limit } = checkPurge(new Date(), 1000);
 * ```
 */
export function checkPurge(cutoff: unknown, limit: unknown): { cutoffMs: number; limit: number } {
  const issues: IssueInput[] = [];
  const cutoffMs = cutoff instanceof Date ? cutoff.getTime() : Number.NaN;
  if (!Number.isFinite(cutoffMs)) issues.push({ path: 'cutoff', message: 'expected a valid Date' });
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_PURGE_LIMIT) {
    issues.push({ path: 'limit', message: `expected a whole number from 1 to ${MAX_PURGE_LIMIT}` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { cutoffMs, limit: limit as number };
}

/**
 * @internal A session record that ended at or before `cutoffMs`: expired then
 * (T4: expired once now >= expiresAt) or revoked then.
 *
 * @example
 * ```ts
 * endedBy(entry, Date.now() - 90 * 86_400_000);
 * ```
 */
export function endedBy(e: Entry, cutoffMs: number): boolean {
  return e.kind === 'session' && (e.expiresAt <= cutoffMs || (e.revokedAt !== null && e.revokedAt <= cutoffMs));
}

/**
 * @internal The ids `purgeSessions(cutoff, limit)` removes from a table: up to
 * `limit` ended sessions (in the order `entries` gives them), each with its
 * subtree; a session whose subtree holds another kind of record is skipped.
 *
 * @example
 * ```ts
 * const doomed = pickPurge(table.entries(), cutoffMs, 1000, (id) => table.childrenOf(id), (id) => table.entryOf(id));
 * ```
 */
export function pickPurge(
  entries: Iterable<Entry>,
  cutoffMs: number,
  limit: number,
  kidsOf: (id: string) => readonly string[],
  entryOf: (id: string) => Entry | undefined,
): Set<string> {
  const doomed = new Set<string>();
  let sessions = 0;
  for (const e of entries) {
    if (sessions >= limit) break;
    if (doomed.has(e.id) || !endedBy(e, cutoffMs)) continue;
    const subtree = sessionSubtree(e.id, kidsOf, entryOf);
    if (subtree === null) continue;
    for (const id of subtree) doomed.add(id);
    sessions++;
  }
  return doomed;
}

/** `id` and its descendants, or `null` when one of them is not a session (the subtree is kept). */
function sessionSubtree(
  id: string,
  kidsOf: (id: string) => readonly string[],
  entryOf: (id: string) => Entry | undefined,
): string[] | null {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    // A loaded file could hold a parent cycle; the seen set keeps the walk finite.
    if (seen.has(next)) continue;
    seen.add(next);
    const e = entryOf(next);
    if (e === undefined) continue;
    if (e.kind !== 'session') return null;
    out.push(next);
    stack.push(...kidsOf(next));
  }
  return out;
}

/**
 * @internal Take `id` out of an index whose values are one id or several (the
 * token table's children and PAT names), dropping the key when none is left.
 *
 * @example
 * ```ts
 * removeFrom(children, parentId, childId);
 * ```
 */
export function removeFrom(map: Map<string, string | string[]>, key: string, id: string): void {
  const cur = map.get(key);
  if (cur === id) map.delete(key);
  else if (Array.isArray(cur)) {
    const rest = cur.filter((x) => x !== id);
    if (rest.length === 0) map.delete(key);
    else map.set(key, rest.length === 1 ? (rest[0] as string) : rest);
  }
}
