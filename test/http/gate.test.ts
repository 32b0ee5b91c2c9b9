import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Principal } from '../../src/core/policy';
import type { Auth } from '../../src/service';
import { expiration, makeGate } from '../../src/http/gate';
import { testAuth } from '../support/auth';

let auth: Auth;
beforeAll(async () => {
  auth = (await testAuth()).auth;
});
const at = (ms: number): Principal => ({
  kind: 'pat',
  userId: 'u',
  tokenId: 't',
  tokenName: 'n',
  expiresAt: new Date(ms),
  serviceAccount: null,
});

describe('expiration header text (remembered per guard)', () => {
  it("is always the ISO text of this principal's own expiry, whatever came before (property)", () => {
    const gate = makeGate(auth, {}, []);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000 }), { maxLength: 50 }), (times) => {
        for (const ms of times) expect(expiration(gate, at(ms))).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('flood of distinct expiries: the remembered texts stay bounded', () => {
    const gate = makeGate(auth, {}, []);
    for (let i = 0; i < 10_000; i++) expiration(gate, at(1_700_000_000_000 + i));
    expect(gate.expiryText.size).toBeLessThanOrEqual(4096);
    expect(expiration(gate, at(1_700_000_000_000))).toBe(new Date(1_700_000_000_000).toISOString());
  });

  it('an invalid date or a disabled header gives no header', () => {
    expect(expiration(makeGate(auth, {}, []), at(Number.NaN))).toBeUndefined();
    expect(expiration(makeGate(auth, { expirationHeader: false }, []), at(0))).toBeUndefined();
    expect(expiration(makeGate(auth, {}, []), null)).toBeUndefined();
  });
});
