/**
 * What the PostgreSQL store remembers of records (no database): chains are
 * answered from memory only while every row shows the remembered version and
 * revocation; the memory is bounded; rows that do not parse never count.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { KnownRecords, freshOf, type Fresh } from '../../src/stores/postgres/tokens/known';
import { toEntry, type Entry } from '../../src/stores/record-codec';
import { record } from '../support/record';

const entry = (id: string, parentId: string | null = null, revokedAt: Date | null = null): Entry =>
  toEntry(record({ id, parentId, revokedAt }), 'date');
const fresh = (...rows: [string, string, number | null][]): Map<string, Fresh> =>
  new Map(rows.map(([id, version, revokedAt]) => [id, { version, revokedAt }]));

describe('KnownRecords', () => {
  it('knows a chain only when every record of it is remembered, nearest first', () => {
    const known = new KnownRecords(10);
    known.remember(entry('c', 'b'), '3');
    expect(known.chainOf('c')).toBeUndefined();
    known.remember(entry('b', 'a'), '2');
    expect(known.chainOf('c')).toBeUndefined();
    known.remember(entry('a'), '1');
    expect(known.chainOf('c')).toEqual(['c', 'b', 'a']);
    expect(known.chainOf('b')).toEqual(['b', 'a']);
    expect(known.chainOf('nope')).toBeUndefined();
  });

  it('answers from memory only when each row has the remembered version and revocation', () => {
    const known = new KnownRecords(10);
    known.remember(entry('b', 'a'), '20');
    known.remember(entry('a'), '10');
    const chain = ['b', 'a'];
    expect(known.unchanged(chain, fresh(['b', '20', null], ['a', '10', null]))?.map((e) => e.id)).toEqual(['b', 'a']);
    // The parent was revoked (its version moved), or only its revoked_at says so: read in full.
    expect(known.unchanged(chain, fresh(['b', '20', null], ['a', '11', 5]))).toBeUndefined();
    expect(known.unchanged(chain, fresh(['b', '20', null], ['a', '10', 5]))).toBeUndefined();
    // A row that is gone, or a row edited by hand (new version, nothing else visible).
    expect(known.unchanged(chain, fresh(['b', '20', null]))).toBeUndefined();
    expect(known.unchanged(chain, fresh(['b', '21', null], ['a', '10', null]))).toBeUndefined();
  });

  it('a loop of hand-edited parent links is never answered from memory (bounded walk)', () => {
    const known = new KnownRecords(10);
    known.remember(entry('x', 'y'), '1');
    known.remember(entry('y', 'x'), '1');
    expect(known.chainOf('x')).toBeUndefined();
  });

  it('flood: never holds more than its bound, forgetting the oldest first', () => {
    const known = new KnownRecords(3);
    for (const id of ['a', 'b', 'c', 'd', 'e']) known.remember(entry(id), '1');
    expect(known.size).toBe(3);
    expect(known.chainOf('a')).toBeUndefined();
    expect(known.chainOf('b')).toBeUndefined();
    expect(known.chainOf('e')).toEqual(['e']);
    // Remembering a known id again replaces it without forgetting another.
    known.remember(entry('e'), '2');
    expect(known.size).toBe(3);
    expect(known.chainOf('c')).toEqual(['c']);
  });

  it('property: size stays within the bound, and a known chain is always a parent-linked path of remembered ids', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.option(fc.integer({ min: 0, max: 12 }))), { maxLength: 60 }),
        (max, ops) => {
          const known = new KnownRecords(max);
          const parents = new Map<string, string | null>();
          for (const [id, parent] of ops) {
            const p = parent === null ? null : `r${parent}`;
            known.remember(entry(`r${id}`, p), '1');
            parents.set(`r${id}`, p);
            expect(known.size).toBeLessThanOrEqual(max);
          }
          for (let i = 0; i <= 12; i++) {
            const chain = known.chainOf(`r${i}`);
            if (chain === undefined) continue;
            chain.forEach((id, k) => expect(parents.get(id)).toBe(chain[k + 1] ?? null));
          }
        },
      ),
    );
  });
});

describe('freshOf', () => {
  it('reads versions and revocations, timestamps as Date or text', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const out = freshOf([
      { id: 'a', row_version: '7', revoked_at: null },
      { id: 'b', row_version: '8', revoked_at: at },
      { id: 'c', row_version: '9', revoked_at: '2026-01-02T03:04:05.678+00:00' },
    ]);
    expect(out.get('a')).toEqual({ version: '7', revokedAt: null });
    expect(out.get('b')).toEqual({ version: '8', revokedAt: at.getTime() });
    expect(out.get('c')).toEqual({ version: '9', revokedAt: at.getTime() });
  });

  it('a row that does not parse is left out, so its chain is read in full (fails closed there)', () => {
    const out = freshOf([
      { id: 'a', row_version: 7, revoked_at: null },
      { id: 'b', row_version: '8', revoked_at: 'yesterday' },
      { id: 'c', row_version: '9', revoked_at: new Date(Number.NaN) },
      { id: 'd', row_version: '9', revoked_at: undefined },
      { id: 12, row_version: '9', revoked_at: null },
    ]);
    expect(out.size).toBe(0);
  });
});
