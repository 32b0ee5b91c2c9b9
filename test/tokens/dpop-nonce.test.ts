/**
 * The resource's DPoP nonces (RFC 9449 §9): an HMAC of the time slot under a shared secret, taken in
 * the slot it was made in and the next one, never before or after, and never under another secret.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dpopNonces } from '../../src/tokens';

const secret = randomBytes(32);

describe('dpopNonces', () => {
  it('a nonce is taken in its own slot and the next, then no longer', () => {
    const n = dpopNonces({ secret, lifetimeSec: 60 });
    const t = 1_800_000_000; // a slot boundary (divisible by 60)
    const nonce = n.current(t);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(n.current(t + 59)).toBe(nonce);
    expect(n.accepts(nonce, t + 59)).toBe(true);
    expect(n.current(t + 60)).not.toBe(nonce);
    expect(n.accepts(nonce, t + 119)).toBe(true);
    expect(n.accepts(nonce, t + 120)).toBe(false);
  });

  it('invariant: a nonce made at t0 is taken at t1 exactly when t1 falls in its slot or the next (any secret, lifetime, times, order)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 64 }),
        fc.integer({ min: 10, max: 3_600 }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: -10_000, max: 10_000 }),
        (key, lifetimeSec, t0, dt) => {
          const t1 = t0 + dt;
          const maker = dpopNonces({ secret: key, lifetimeSec });
          // A checker that has seen other times first: its kept slots must not change the answer.
          const checker = dpopNonces({ secret: key, lifetimeSec });
          checker.current(t1 - lifetimeSec);
          const slots = Math.floor(t1 / lifetimeSec) - Math.floor(t0 / lifetimeSec);
          expect(checker.accepts(maker.current(t0), t1)).toBe(slots === 0 || slots === 1);
        },
      ),
    );
  });

  it('every server with the same secret takes the others’ nonces; another secret takes none', () => {
    const t = 1_800_000_030;
    const a = dpopNonces({ secret, lifetimeSec: 60 });
    const b = dpopNonces({ secret: Uint8Array.from(secret), lifetimeSec: 60 });
    const other = dpopNonces({ secret: randomBytes(32), lifetimeSec: 60 });
    expect(b.accepts(a.current(t), t)).toBe(true);
    expect(other.accepts(a.current(t), t)).toBe(false);
  });

  it('attack: values that are no nonce of this resource are refused, never thrown on', () => {
    const n = dpopNonces({ secret, lifetimeSec: 60 });
    const t = 1_800_000_000;
    for (const bad of [undefined, null, 1, '', {}, [n.current(t)], 'x'.repeat(10_000), `${n.current(t)} `, n.current(t).toUpperCase()]) {
      expect(n.accepts(bad, t)).toBe(false);
    }
  });
});
