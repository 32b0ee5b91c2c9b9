/**
 * `drive`, the runner of the request path's steps: at once while nothing waits, from the first promise
 * on asynchronously; a rejection goes back into the steps (their own catch decides), and an error met
 * before any wait is thrown at once. Against an async function doing the same, for any sequence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drive, type Steps } from '../../../src/service/authenticate/steps';

type Step = { kind: 'value'; v: number } | { kind: 'promise'; v: number } | { kind: 'reject'; v: number } | { kind: 'throw'; v: number };

const at = (s: Step): number | Promise<number> =>
  s.kind === 'value' ? s.v : s.kind === 'promise' ? Promise.resolve(s.v) : s.kind === 'reject' ? Promise.reject(new Error(`r${s.v}`)) : s.v;

/** Sum the steps; a rejection is counted as -1000 by the steps' own catch; `throw` throws (not caught). */
function* summed(steps: readonly Step[]): Steps<number> {
  let total = 0;
  for (const s of steps) {
    if (s.kind === 'throw') throw new Error(`t${s.v}`);
    const x = at(s);
    try {
      total += x instanceof Promise ? ((yield x) as number) : x;
    } catch {
      total -= 1000;
    }
  }
  return total;
}

async function summedAsync(steps: readonly Step[]): Promise<number> {
  let total = 0;
  for (const s of steps) {
    if (s.kind === 'throw') throw new Error(`t${s.v}`);
    const x = at(s);
    try {
      total += x instanceof Promise ? await x : x;
    } catch {
      total -= 1000;
    }
  }
  return total;
}

const step = fc.oneof(
  fc.record({ kind: fc.constant('value' as const), v: fc.integer({ min: 0, max: 99 }) }),
  fc.record({ kind: fc.constant('promise' as const), v: fc.integer({ min: 0, max: 99 }) }),
  fc.record({ kind: fc.constant('reject' as const), v: fc.integer({ min: 0, max: 99 }) }),
  fc.record({ kind: fc.constant('throw' as const), v: fc.integer({ min: 0, max: 99 }) }),
);

describe('drive', () => {
  it('runs to the end at once when nothing waits', () => {
    expect(
      drive(
        summed([
          { kind: 'value', v: 1 },
          { kind: 'value', v: 2 },
        ]),
      ),
    ).toBe(3);
  });

  it('goes on after a promise, and a rejection reaches the steps’ own catch', async () => {
    const got = drive(
      summed([
        { kind: 'promise', v: 1 },
        { kind: 'reject', v: 0 },
        { kind: 'value', v: 5 },
      ]),
    );
    expect(got).toBeInstanceOf(Promise);
    expect(await got).toBe(1 - 1000 + 5);
  });

  it('an error before any wait is thrown at once; after one, the promise rejects with it', async () => {
    expect(() =>
      drive(
        summed([
          { kind: 'value', v: 1 },
          { kind: 'throw', v: 7 },
        ]),
      ),
    ).toThrow('t7');
    await expect(
      drive(
        summed([
          { kind: 'promise', v: 1 },
          { kind: 'throw', v: 8 },
        ]),
      ),
    ).rejects.toThrow('t8');
  });

  it('invariant: the same result or error as an async function doing the same, for any sequence (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const expected = await summedAsync(steps).then(
          (v) => ({ v }),
          (e: unknown) => ({ e: (e as Error).message }),
        );
        let got: { v: number } | { e: string };
        try {
          got = { v: await drive(summed(steps)) };
        } catch (e) {
          got = { e: (e as Error).message };
        }
        expect(got).toEqual(expected);
        // At once exactly when no step before the end (or the first throw) was a promise.
        const upTo = steps.findIndex((s) => s.kind === 'throw');
        const waited = (upTo === -1 ? steps : steps.slice(0, upTo)).some((s) => s.kind !== 'value');
        let now: unknown;
        try {
          now = drive(summed(steps));
        } catch {
          now = undefined;
        }
        if (!waited) expect(now).not.toBeInstanceOf(Promise);
        else expect(now).toBeInstanceOf(Promise);
        await Promise.resolve(now).catch(() => undefined);
      }),
    );
  });
});
