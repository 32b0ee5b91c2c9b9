/**
 * The readChain batcher of the PostgreSQL store, against a scripted source (no
 * database): coalescing, order, per-id errors, T5's rule that a call never
 * joins a read already sent, and service-account reads riding on the batch.
 */
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors';
import { ChainBatcher } from '../../src/stores/postgres';
import { ids, limits, rowsFor, scripted, tick } from './chain-source';

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
