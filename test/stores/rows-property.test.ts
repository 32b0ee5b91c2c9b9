/**
 * The memory store keeps each record as a compact row (src/stores/row.ts:
 * whole-second times as small integers, other times exactly, the kind and the
 * rarely set fields in one shared object). A property (fast-check) side by side
 * with a plain model that keeps every record as it was given: after random
 * inserts, revocations, last-used times and expiry warnings, `readChain`,
 * `readChainSync` and `listByOwner` answer exactly what the model holds, for
 * any time a `Date` can hold (millisecond precision, before 1970, after 2038,
 * the extremes), every kind and every optional field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore, type RecordKind, type TokenRecord } from '../../src/stores';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const NOW = Date.UTC(2030, 0, 1);
const MAX_DATE = 8.64e15;

// Whole seconds around the small-integer edge and anywhere, and any millisecond a Date can hold.
const time = fc.oneof(
  fc.integer({ min: 2 ** 31 - 3, max: 2 ** 31 + 3 }).map((s) => s * 1000),
  fc.integer({ min: -(2 ** 31) - 3, max: -(2 ** 31) + 3 }).map((s) => s * 1000),
  fc.integer({ min: -(2 ** 33), max: 2 ** 33 }).map((s) => s * 1000),
  fc.integer({ min: -MAX_DATE, max: MAX_DATE }),
  fc.constantFrom(0, -0, 1, -1, 999, 1000, -1000, MAX_DATE, -MAX_DATE, NOW),
);
const future = fc.oneof(
  fc.integer({ min: NOW + 1, max: MAX_DATE }),
  fc.integer({ min: 1, max: 2 ** 20 }).map((s) => NOW + s * 1000),
);

const fields = fc.record({
  kind: fc.constantFrom<RecordKind>('pat', 'component', 'session'),
  owner: fc.constantFrom('alice', 'bob'),
  description: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
  committerIdentity: fc.option(fc.constant('Alice <alice@example.com>'), { nil: null }),
  scopes: fc.option(fc.constant([{ resource: 'acme/web', permissions: ['repo:read' as const] }]), { nil: null }),
  allowedIps: fc.option(fc.constantFrom(['203.0.113.0/24'], ['10.0.0.0/8', '2001:db8::/32']), { nil: undefined }),
  parent: fc.option(fc.nat(20), { nil: null }),
  createdAt: time,
  expiresAt: fc.oneof(time, future),
  revokedAt: fc.option(time, { nil: null }),
  lastUsedAt: fc.option(time, { nil: null }),
  expiryWarnings: fc.option(fc.constantFrom([86_400], [604_800, 86_400]), { nil: undefined }),
});

const op = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), f: fields }),
  fc.record({ op: fc.constant('revoke' as const), at: fc.nat(30), when: time }),
  fc.record({ op: fc.constant('touch' as const), at: fc.nat(30), when: time }),
  fc.record({ op: fc.constant('mark' as const), within: fc.constantFrom(3600, 86_400, 604_800) }),
);

/** What the store must answer for a record: absent optional fields as it shows them. */
function shown(r: TokenRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r, lastUsedAt: r.lastUsedAt ?? null };
  for (const k of ['allowedIps', 'usedFrom', 'expiryWarnings'] as const) {
    const v = r[k];
    if (v === undefined || v === null || v.length === 0) delete out[k];
  }
  return out;
}

const active = (r: TokenRecord): boolean => r.revokedAt === null && r.expiresAt.getTime() > NOW;

describe('compact rows (property, side by side with a plain model)', () => {
  it('answers every read exactly as the records were given and changed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const store = new MemoryTokenStore();
        const model = new Map<string, Mutable<TokenRecord>>();
        const ids: string[] = [];
        const now = new Date(NOW);
        for (const o of ops) {
          if (o.op === 'insert') {
            const f = o.f;
            const id = `r${ids.length}`;
            const parentId = f.parent === null || ids.length === 0 ? null : (ids[f.parent % ids.length] as string);
            const rec: Mutable<TokenRecord> = {
              id,
              kind: f.kind,
              ownerId: f.owner,
              name: `n${ids.length}`,
              description: f.description,
              scopes: f.scopes,
              parentId,
              createdAt: new Date(f.createdAt),
              expiresAt: new Date(f.expiresAt),
              revokedAt: f.revokedAt === null ? null : new Date(f.revokedAt),
              committerIdentity: f.committerIdentity,
              lastUsedAt: f.lastUsedAt === null ? null : new Date(f.lastUsedAt),
              ...(f.allowedIps === undefined ? {} : { allowedIps: f.allowedIps }),
              ...(f.expiryWarnings === undefined ? {} : { expiryWarnings: f.expiryWarnings }),
            };
            const parent = parentId === null ? undefined : model.get(parentId);
            const want = parentId !== null && (parent === undefined || !active(parent)) ? 'parent_inactive' : 'ok';
            expect(await store.insert(rec, now)).toBe(want);
            ids.push(id);
            if (want === 'ok') model.set(id, { ...rec });
          } else if (o.op === 'revoke' && ids.length > 0) {
            const id = ids[o.at % ids.length] as string;
            const done = await store.revoke([id], new Date(o.when));
            // The subtree's cascade is the conformance suite's; here: the record itself, once.
            const r = model.get(id);
            expect(done.includes(id)).toBe(r !== undefined && r.revokedAt === null);
            for (const d of done) {
              const m = model.get(d) as Mutable<TokenRecord>;
              expect(m.revokedAt).toBeNull();
              m.revokedAt = new Date(o.when);
            }
          } else if (o.op === 'touch' && ids.length > 0) {
            const id = ids[o.at % ids.length] as string;
            await store.touch([id], new Date(o.when));
            const r = model.get(id);
            if (r !== undefined && (r.lastUsedAt == null || r.lastUsedAt.getTime() < o.when)) r.lastUsedAt = new Date(o.when);
          } else if (o.op === 'mark') {
            for (const r of await store.markExpiring(o.within, now, 100)) {
              const m = model.get(r.id) as Mutable<TokenRecord>;
              m.expiryWarnings = [...(m.expiryWarnings ?? []), o.within];
            }
          }
        }
        for (const [id, r] of model) {
          const chain = await store.readChain(id);
          expect(shown(chain?.[0] as TokenRecord)).toEqual(shown(r));
          expect(store.readChainSync(id)).toEqual(chain);
        }
        for (const owner of ['alice', 'bob']) {
          const want = [...model.values()].filter((r) => r.ownerId === owner).map(shown);
          expect((await store.listByOwner(owner)).map(shown)).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});
