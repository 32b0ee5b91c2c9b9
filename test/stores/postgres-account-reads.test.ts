/**
 * Service-account reads as the PostgreSQL store's batches carry them: keys, the riders'
 * parameters and rows, and the records decoded from their stored text (shared frozen ones for
 * the request path, checked once per distinct text; fresh ones for every other caller).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UnavailableError } from '../../src/errors';
import { AccountViews, accountParams, accountsOf, ridersParam } from '../../src/stores/postgres/tokens/side-tables';
import { accountKey } from '../../src/stores/postgres/tokens/side-tables/account-reads';

const record = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({
    org: 'acme',
    name: 'ci-bot',
    role: 'editor',
    description: null,
    disabled: false,
    clients: [],
    createdBy: 'alice',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedBy: 'alice',
    updatedAt: '2026-11-01T00:00:00.000Z',
    version: 1,
    ...over,
  });

describe('account keys and the riders', () => {
  it('property: a key gives back its org and name, and the riders name each pair as JSON', () => {
    // Any text but NUL, which the store refuses before making a key.
    const part = fc.string({ unit: 'binary' }).filter((s) => !s.includes('\u0000'));
    fc.assert(
      fc.property(fc.array(fc.tuple(part, part), { maxLength: 5 }), (pairs) => {
        const keys = pairs.map(([o, n]) => accountKey(o, n));
        for (const [i, key] of keys.entries()) expect(accountParams(key)).toEqual(pairs[i]);
        expect(JSON.parse(ridersParam(keys))).toEqual(pairs);
        // The rows echo each pair: found again under its own key.
        const rows = pairs.map(([o, n], i) => [[o, n], `r${i}`]);
        const found = accountsOf(rows);
        for (const [i, key] of keys.entries()) (expect(found.has(key)).toBe(true), expect(keys.indexOf(key) <= i).toBe(true));
      }),
    );
  });

  it('pair forgery: "a/b" + "c" and "a" + "b/c" are two accounts, and rows that are not a pair and a record are passed by', () => {
    expect(accountKey('a/b', 'c')).not.toBe(accountKey('a', 'b/c'));
    expect([...accountsOf([null, 'x', [['acme'], 'r'], [[1, 2], 'r'], [['acme', 'bot'], 'r']]).keys()]).toEqual([
      accountKey('acme', 'bot'),
    ]);
  });
});

describe('AccountViews', () => {
  it('a shared read is checked once per distinct text: the same frozen record, until the text changes', () => {
    const views = new AccountViews(10);
    const a = views.decode(record(), true);
    expect(views.decode(record(), true)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    const lowered = views.decode(record({ role: 'viewer', version: 2 }), true);
    expect(lowered.role).toBe('viewer');
    expect(lowered).not.toBe(a);
  });

  it('every other caller gets a fresh record, equal to the shared one', () => {
    const views = new AccountViews(10);
    const shared = views.decode(record(), true);
    const own = views.decode(record(), false);
    expect(own).not.toBe(shared);
    expect(own).toEqual(shared);
    expect(views.decode(record(), false)).not.toBe(own);
  });

  it('hand-edited records fail closed, every time: UnavailableError, never remembered', () => {
    const views = new AccountViews(10);
    for (const bad of ['{', record({ role: 'root' }), 'null', '[]', record({ createdAt: 'yesterday' })]) {
      for (let i = 0; i < 2; i++) expect(() => views.decode(bad, true)).toThrow(UnavailableError);
    }
    // A jsonb value the driver parsed (an older row form) is checked the same way.
    expect(views.decode(JSON.parse(record()) as unknown, true).name).toBe('ci-bot');
    expect(() => views.decode({ role: 'root' }, true)).toThrow(UnavailableError);
  });

  it('cache flood: a stream of distinct texts keeps at most max of them', () => {
    const views = new AccountViews(3);
    const first = views.decode(record({ description: 'd0' }), true);
    for (let i = 1; i < 50; i++) views.decode(record({ description: `d${i}` }), true);
    // The first was forgotten: decoded again, a new (equal) record.
    const again = views.decode(record({ description: 'd0' }), true);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    expect(new AccountViews(0).decode(record(), true)).not.toBe(new AccountViews(0).decode(record(), true));
  });
});
