/**
 * The purge invariant, as a property (fast-check) over random forests of PAT,
 * component and session records, ended or not, on the memory store: after
 * `purgeSessions`, no record's parent is missing, no PAT or component record
 * is gone, every removed record is a session that ended by the cutoff or lies
 * under one, every ended session whose subtree holds only sessions is gone,
 * and the answer is the number of records removed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore, type RecordKind, type TokenRecord } from '../../src/stores';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;

const node = fc.record({
  kind: fc.constantFrom<RecordKind>('session', 'session', 'session', 'pat', 'component'),
  parent: fc.integer({ min: -1, max: 30 }),
  endsDay: fc.integer({ min: 1, max: 20 }),
  revokedDay: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
});

describe('purgeSessions (property)', () => {
  it('never leaves an orphan, never removes a PAT or component, removes exactly the ended session subtrees', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(node, { maxLength: 30 }), fc.integer({ min: 0, max: 22 }), async (nodes, cutoffDay) => {
        const store = new MemoryTokenStore();
        const records: TokenRecord[] = [];
        nodes.forEach((n, i) => {
          const parent = n.parent >= 0 && n.parent < i ? records[n.parent] : undefined;
          records.push({
            id: `r${i}`,
            kind: n.kind,
            ownerId: 'alice',
            name: `n${i}`,
            description: null,
            scopes: null,
            parentId: parent?.id ?? null,
            createdAt: new Date(T0),
            expiresAt: new Date(T0 + n.endsDay * DAY),
            revokedAt: null,
            committerIdentity: null,
          });
        });
        for (const r of records) expect(await store.insert(r, new Date(T0))).toBe('ok');
        for (const [i, n] of nodes.entries()) if (n.revokedDay !== null) await store.revoke([`r${i}`], new Date(T0 + n.revokedDay * DAY));
        const before = new Map((await store.listByOwner('alice')).map((r) => [r.id, r]));
        const cutoff = T0 + cutoffDay * DAY;
        const removed = await store.purgeSessions(new Date(cutoff), 10_000);
        const after = new Map((await store.listByOwner('alice')).map((r) => [r.id, r]));
        expect(removed).toBe(before.size - after.size);
        const kids = (id: string): TokenRecord[] => [...before.values()].filter((r) => r.parentId === id);
        const subtree = (id: string): TokenRecord[] => [before.get(id) as TokenRecord, ...kids(id).flatMap((k) => subtree(k.id))];
        const ended = (r: TokenRecord): boolean =>
          r.kind === 'session' && (r.expiresAt.getTime() <= cutoff || (r.revokedAt !== null && r.revokedAt.getTime() <= cutoff));
        for (const r of after.values()) if (r.parentId !== null) expect(after.has(r.parentId)).toBe(true);
        for (const r of before.values()) {
          if (r.kind !== 'session') expect(after.has(r.id)).toBe(true);
          const sub = subtree(r.id);
          if (ended(r) && sub.every((x) => x.kind === 'session')) expect(after.has(r.id)).toBe(false);
          if (!after.has(r.id)) {
            // Removed: an ended session, or under one (walking up the parents as they were).
            let cur: TokenRecord | undefined = r;
            let why = false;
            while (cur !== undefined && !why) {
              why = ended(cur);
              cur = cur.parentId === null ? undefined : before.get(cur.parentId);
            }
            expect(why).toBe(true);
          }
        }
        expect(await store.purgeSessions(new Date(cutoff), 10_000)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
