/**
 * The readChain batcher of the PostgreSQL store, against a scripted source (no
 * database): coalescing, order, per-id errors, T5's rule that a call never
 * joins a read already sent, and service-account reads riding on the batch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueryResultRow } from 'pg';
import { UnavailableError } from '../../src/errors';
import { ChainBatcher } from '../../src/stores/postgres';
import type { ChainSource } from '../../src/stores/postgres/tokens/batch';
import { groupByRoot } from '../../src/stores/postgres/tokens/rows';
import type { ServiceAccountRecord, TokenRecord } from '../../src/stores';

interface Sent {
  ids: readonly string[];
  accounts: readonly string[];
  answer: (rows: QueryResultRow[]) => void;
  fail: (err: unknown) => void;
}

/** A source whose statements are answered by the test, one by one. */
function scripted(): { source: ChainSource<QueryResultRow[]>; sent: Sent[] } {
  const sent: Sent[] = [];
  const source: ChainSource<QueryResultRow[]> = {
    fetch: (ids, _ms, accounts) =>
      new Promise<QueryResultRow[]>((resolve, reject) => {
        sent.push({ ids, accounts, answer: resolve, fail: reject });
      }).then((rows) => ({
        chains: groupByRoot(rows.filter((r) => r.root !== undefined)),
        accounts: new Map(rows.filter((r) => r.account !== undefined).map((r) => [String(r.account), r])),
      })),
    decode: (rows) =>
      rows.map((r) => {
        if (r.bad === true) throw new UnavailableError('token store unavailable: a stored record is malformed');
        return { id: String(r.id), parentId: r.parent ?? null } as unknown as TokenRecord;
      }),
    decodeAccount: (found) => {
      const r = found as QueryResultRow;
      if (r.bad === true) throw new UnavailableError('token store unavailable: a stored service account is malformed');
      return { org: String(r.account), name: 'bot' } as unknown as ServiceAccountRecord;
    },
  };
  return { source, sent };
}

/** Rows of chains: each id's chain is itself then `<id>-parent`. */
function rowsFor(ids: readonly string[]): QueryResultRow[] {
  return ids.flatMap((id) => [
    { root: id, id, parent: `${id}-parent` },
    { root: id, id: `${id}-parent` },
  ]);
}

// minSplit above the tests' batch sizes: a batch is one statement unless a test says otherwise.
const limits = { maxIds: 128, maxInFlight: 2, minSplit: 64, timeoutMs: 5_000 };
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const ids = (chain: TokenRecord[] | null): string[] | null => chain?.map((r) => r.id) ?? null;

describe('ChainBatcher', () => {
  it('calls made together go out as one statement, and each caller gets exactly its own chain, nearest first', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, limits);
    const wanted = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const reads = wanted.map((id) => b.read(id));
    await tick();
    expect(sent).toHaveLength(1);
    expect([...(sent[0]?.ids ?? [])].sort()).toEqual([...wanted].sort());
    // Rows arrive grouped by root in another order than asked: each caller still gets its own.
    sent[0]?.answer(rowsFor([...wanted].reverse()));
    const chains = await Promise.all(reads);
    chains.forEach((c, i) => expect(ids(c)).toEqual([wanted[i], `${wanted[i]}-parent`]));
  });

  it('an id with no rows is null without touching the others', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, limits);
    const known = b.read('known');
    const missing = b.read('missing');
    await tick();
    sent[0]?.answer(rowsFor(['known']));
    expect(ids(await known)).toEqual(['known', 'known-parent']);
    expect(await missing).toBeNull();
  });

  it('a malformed row of one id fails only that id: the others in the batch still get their chains', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, limits);
    const good = b.read('good');
    const bad = b.read('bad').catch((e: unknown) => e);
    await tick();
    sent[0]?.answer([...rowsFor(['good']), { root: 'bad', id: 'bad', bad: true }]);
    expect(ids(await good)).toEqual(['good', 'good-parent']);
    expect(await bad).toBeInstanceOf(UnavailableError);
  });

  it('a failed statement fails every caller of its batch (fail closed), and the next batch works', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, limits);
    const reads = ['a', 'b', 'a'].map((id) => b.read(id).catch((e: unknown) => e));
    await tick();
    const err = new UnavailableError('token store unavailable: database unreachable');
    sent[0]?.fail(err);
    for (const r of await Promise.all(reads)) expect(r).toBe(err);
    const again = b.read('a');
    await tick();
    sent[1]?.answer(rowsFor(['a']));
    expect(ids(await again)).toEqual(['a', 'a-parent']);
  });

  it('callers of the same id in an unsent batch share one read, each with its own copy', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, limits);
    const first = b.read('same');
    const second = b.read('same');
    await tick();
    expect(sent[0]?.ids).toEqual(['same']);
    sent[0]?.answer(rowsFor(['same']));
    const [x, y] = await Promise.all([first, second]);
    expect(ids(x)).toEqual(ids(y));
    expect(x).not.toBe(y);
  });

  it('T5 stale read: a call made after a read was sent never joins it, even for the same id', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, limits);
    const before = b.read('tok');
    await tick();
    expect(sent).toHaveLength(1);
    // A revoke commits here; the read already on the wire may not see it.
    const after = b.read('tok');
    await tick();
    expect(sent).toHaveLength(2);
    expect(sent[1]?.ids).toEqual(['tok']);
    sent[0]?.answer([{ root: 'tok', id: 'tok', revoked: false }]);
    sent[1]?.answer([{ root: 'tok', id: 'tok-seen-revoked' }]);
    expect(ids(await before)).toEqual(['tok']);
    expect(ids(await after)).toEqual(['tok-seen-revoked']);
  });

  it('with every slot busy, calls gather into one batch that is sent when a slot frees', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, { ...limits, maxInFlight: 1 });
    const first = b.read('one');
    await tick();
    const waiting = ['x', 'y', 'z', 'x'].map((id) => b.read(id));
    await tick();
    expect(sent).toHaveLength(1);
    sent[0]?.answer(rowsFor(['one']));
    await first;
    await tick();
    expect(sent).toHaveLength(2);
    expect([...(sent[1]?.ids ?? [])].sort()).toEqual(['x', 'y', 'z']);
    sent[1]?.answer(rowsFor(['x', 'y', 'z']));
    expect((await Promise.all(waiting)).map((c) => c?.[0]?.id)).toEqual(['x', 'y', 'z', 'x']);
  });

  it('no statement carries more than maxIds ids', async () => {
    const { source, sent } = scripted();
    const b = new ChainBatcher(source, { ...limits, maxIds: 10, maxInFlight: 8 });
    const reads = Array.from({ length: 25 }, (_, i) => b.read(`m${i}`));
    await tick();
    expect(sent.map((s) => s.ids.length)).toEqual([10, 10, 5]);
    for (const s of sent) s.answer(rowsFor(s.ids));
    expect((await Promise.all(reads)).map((c) => c?.[0]?.id)).toEqual(Array.from({ length: 25 }, (_, i) => `m${i}`));
  });

  describe('a batch gathered in one turn is split over the free slots', () => {
    it('32 calls with four free slots go out as two statements of 16; 31 as one; 100 as four of 25', async () => {
      for (const [n, want] of [
        [32, [16, 16]],
        [31, [31]],
        [100, [25, 25, 25, 25]],
      ] as const) {
        const { source, sent } = scripted();
        const b = new ChainBatcher(source, { ...limits, maxInFlight: 4, minSplit: 16 });
        const reads = Array.from({ length: n }, (_, i) => b.read(`s${i}`));
        await tick();
        expect(sent.map((s) => s.ids.length)).toEqual(want);
        for (const s of sent) s.answer(rowsFor(s.ids));
        expect((await Promise.all(reads)).map((c) => c?.[0]?.id)).toEqual(Array.from({ length: n }, (_, i) => `s${i}`));
      }
    });

    it('only over slots that are free: with one busy of two, 40 calls are one statement; a flood is maxIds per slot', async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, { ...limits, maxInFlight: 2, minSplit: 16 });
      const first = b.read('first');
      await tick();
      const reads = Array.from({ length: 40 }, (_, i) => b.read(`w${i}`));
      await tick();
      expect(sent.map((s) => s.ids.length)).toEqual([1, 40]);
      for (const s of sent) s.answer(rowsFor(s.ids));
      await Promise.all([first, ...reads]);

      const flood = scripted();
      const f = new ChainBatcher(flood.source, { ...limits, maxIds: 128, maxInFlight: 4, minSplit: 16 });
      const many = Array.from({ length: 1000 }, (_, i) => f.read(`f${i}`));
      await tick();
      expect(flood.sent.map((s) => s.ids.length)).toEqual([128, 128, 128, 128]);
      while (flood.sent.some((s) => s.ids.length > 0)) {
        const open = flood.sent.splice(0);
        for (const s of open) s.answer(rowsFor(s.ids));
        await tick();
        await tick();
      }
      expect((await Promise.all(many)).map((c) => c?.[0]?.id)).toEqual(Array.from({ length: 1000 }, (_, i) => `f${i}`));
    });

    it('invariant: every caller gets its own chain, no statement holds more than maxIds or (split) fewer than minSplit (fast-check)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 300 }),
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 1, max: 64 }),
          async (n, maxInFlight, minSplit, maxIds) => {
            const { source, sent } = scripted();
            const b = new ChainBatcher(source, { ...limits, maxIds, maxInFlight, minSplit });
            const reads = Array.from({ length: n }, (_, i) => b.read(`p${i % 250}`));
            await tick();
            const first = sent.map((s) => s.ids.length);
            expect(first.length).toBeLessThanOrEqual(maxInFlight);
            // Split parts are even and at least minSplit each, unless maxIds caps them lower.
            if (first.length > 1) for (const size of first.slice(0, -1)) expect(size).toBeGreaterThanOrEqual(Math.min(minSplit, maxIds));
            for (let round = 0; sent.length > 0 && round < 1000; round++) {
              for (const s of sent.splice(0)) {
                expect(s.ids.length).toBeLessThanOrEqual(maxIds);
                s.answer(rowsFor(s.ids));
              }
              await tick();
              await tick();
            }
            expect((await Promise.all(reads)).map((c) => c?.[0]?.id)).toEqual(Array.from({ length: n }, (_, i) => `p${i % 250}`));
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  describe('service-account reads', () => {
    it("ride on the chains' statement when made in the same turn: one statement for both", async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, limits);
      const account = b.readAccount('acme');
      const chain = b.read('tok');
      await tick();
      expect(sent).toHaveLength(1);
      expect(sent[0]?.ids).toEqual(['tok']);
      expect(sent[0]?.accounts).toEqual(['acme']);
      sent[0]?.answer([...rowsFor(['tok']), { account: 'acme' }]);
      expect((await account)?.org).toBe('acme');
      expect(ids(await chain)).toEqual(['tok', 'tok-parent']);
    });

    it('alone, an account read is a statement of its own; an account not in the answer is null', async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, limits);
      const gone = b.readAccount('gone');
      await tick();
      expect(sent.map((s) => [s.ids, s.accounts])).toEqual([[[], ['gone']]]);
      sent[0]?.answer([]);
      expect(await gone).toBeNull();
    });

    it('W2 stale account: a read made after a batch was sent never joins it, so a disabled account is seen by the next request', async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, limits);
      const before = b.readAccount('acme');
      await tick();
      // The account is disabled here; the statement already on the wire may not see it.
      const after = b.readAccount('acme');
      await tick();
      expect(sent.map((s) => s.accounts)).toEqual([['acme'], ['acme']]);
      sent[1]?.answer([]);
      sent[0]?.answer([{ account: 'acme' }]);
      expect((await before)?.org).toBe('acme');
      expect(await after).toBeNull();
    });

    it('a malformed account fails only its callers; a failed statement fails every caller, accounts and chains alike', async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, limits);
      const bad = b.readAccount('bad').catch((e: unknown) => e);
      const good = b.readAccount('good');
      const chain = b.read('tok');
      await tick();
      sent[0]?.answer([...rowsFor(['tok']), { account: 'bad', bad: true }, { account: 'good' }]);
      expect(await bad).toBeInstanceOf(UnavailableError);
      expect((await good)?.org).toBe('good');
      expect(ids(await chain)).toEqual(['tok', 'tok-parent']);
      const err = new UnavailableError('token store unavailable: database unreachable');
      const failed = [b.readAccount('acme'), b.read('tok')].map((p) => p.catch((e: unknown) => e));
      await tick();
      sent[1]?.fail(err);
      for (const r of await Promise.all(failed)) expect(r).toBe(err);
    });

    it('each caller of one account gets its own record', async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, limits);
      const both = [b.readAccount('acme'), b.readAccount('acme')];
      await tick();
      expect(sent[0]?.accounts).toEqual(['acme']);
      sent[0]?.answer([{ account: 'acme' }]);
      const [x, y] = await Promise.all(both);
      expect(x).toEqual(y);
      expect(x).not.toBe(y);
    });

    it('no statement carries more than maxIds accounts', async () => {
      const { source, sent } = scripted();
      const b = new ChainBatcher(source, { ...limits, maxIds: 4, maxInFlight: 8 });
      const reads = Array.from({ length: 9 }, (_, i) => b.readAccount(`o${i}`));
      await tick();
      expect(sent.map((s) => s.accounts.length)).toEqual([4, 4, 1]);
      for (const s of sent) s.answer(s.accounts.map((a) => ({ account: a })));
      expect((await Promise.all(reads)).map((a) => a?.org)).toEqual(Array.from({ length: 9 }, (_, i) => `o${i}`));
    });
  });
});
