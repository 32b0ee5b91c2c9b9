/**
 * The readChain batcher of the PostgreSQL store splits a batch gathered in one
 * turn over its free slots (parts of at least `minSplit` ids), against a
 * scripted source (no database).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainBatcher } from '../../src/stores/postgres';
import { limits, rowsFor, scripted, tick } from './chain-source';

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
