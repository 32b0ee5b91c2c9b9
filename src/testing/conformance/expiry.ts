/**
 * Conformance cases for the optional `TokenStore.markExpiring` (expiry
 * warnings): only active PATs inside the window, each threshold claimed once
 * (a shorter threshold warns again, a longer one after a shorter does not),
 * at most `limit` per call, and once only when calls race, on one store or on
 * two servers sharing the records.
 *
 * Each case works at its own instant, years after the other cases' records
 * have expired, so a store whose table other cases share (PostgreSQL) holds
 * nothing else that is due then.
 * @module
 */
import { expect } from 'vitest';
import type { TokenRecord } from '../../stores';
import { at, DAY, fixtures, HOUR, type CaseRegistrar } from './fixtures';

const WEEK_SEC = 7 * 86_400;
const DAY_SEC = 86_400;

/**
 * @internal Register the `markExpiring` cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * expiryCases((name, run) => cases.push({ name, run: (s, twin) => run(() => s, () => twin) }));
 * ```
 */
export function expiryCases(it: CaseRegistrar): void {
  it('markExpiring (optional): claims active PATs expiring within the window, once, soonest first; no component, revoked, expired or later one', async (store) => {
    const s = store();
    if (s.markExpiring === undefined) return;
    const f = fixtures();
    const base = 1000 * DAY;
    const now = at(base);
    const pat = (name: string, expires: number, over: Partial<TokenRecord> = {}): TokenRecord =>
      f.record({ id: f.id(name), name, createdAt: at(base - DAY), expiresAt: at(base + expires), ...over });
    const soon = pat('soon', 2 * DAY);
    const edge = pat('edge', 7 * DAY); // exactly at the end of the window: inside
    const later = pat('later', 7 * DAY + 1000);
    const component = pat('component', HOUR, { kind: 'component' });
    const revoked = pat('revoked', DAY);
    const expired = pat('expired', 0); // expires at now: no longer active
    for (const r of [later, edge, soon, component, revoked, expired]) expect(await s.insert(r, at(base - DAY))).toBe('ok');
    await s.revoke([revoked.id], at(base - 1000));
    const claimed = (await s.markExpiring(WEEK_SEC, now, 100)).filter((r) => r.ownerId === f.owner());
    expect(claimed.map((r) => r.name)).toEqual(['soon', 'edge']);
    for (const r of claimed) expect(r.expiryWarnings).toEqual([WEEK_SEC]);
    expect((await s.readChain(soon.id))?.[0]?.expiryWarnings).toEqual([WEEK_SEC]);
    expect((await s.readChain(later.id))?.[0]?.expiryWarnings ?? []).toEqual([]);
    // Claimed once: a second sweep, or another a moment later, finds nothing new.
    expect((await s.markExpiring(WEEK_SEC, now, 100)).filter((r) => r.ownerId === f.owner())).toEqual([]);
    expect((await s.markExpiring(WEEK_SEC, at(base + 500), 100)).filter((r) => r.ownerId === f.owner())).toEqual([]);
    // Later on, the one that was outside the window comes inside it.
    const next = (await s.markExpiring(WEEK_SEC, at(base + DAY), 100)).filter((r) => r.ownerId === f.owner());
    expect(next.map((r) => r.name)).toEqual(['later']);
  });

  it('markExpiring (optional): a shorter threshold warns again; a longer one after a shorter does not', async (store) => {
    const s = store();
    const mark = s.markExpiring?.bind(s);
    if (mark === undefined) return;
    const f = fixtures();
    const base = 1100 * DAY;
    const p = f.record({ id: f.id('p'), name: 'p', createdAt: at(base - DAY), expiresAt: at(base + 12 * HOUR) });
    const q = f.record({ id: f.id('q'), name: 'q', createdAt: at(base - DAY), expiresAt: at(base + 12 * HOUR) });
    for (const r of [p, q]) expect(await s.insert(r, at(base - DAY))).toBe('ok');
    const names = async (within: number): Promise<string[]> =>
      (await mark(within, at(base), 100)).filter((r) => r.ownerId === f.owner()).map((r) => r.name);
    // p: warned within 7 days, then within 1 day.
    expect(await names(WEEK_SEC)).toEqual(['p', 'q']);
    expect(await names(DAY_SEC)).toEqual(['p', 'q']);
    expect((await s.readChain(p.id))?.[0]?.expiryWarnings).toEqual([WEEK_SEC, DAY_SEC]);
    expect(await names(WEEK_SEC)).toEqual([]);
    expect(await names(DAY_SEC)).toEqual([]);
    const r = f.record({ id: f.id('r'), name: 'r', createdAt: at(base - DAY), expiresAt: at(base + 12 * HOUR) });
    expect(await s.insert(r, at(base - DAY))).toBe('ok');
    // r: warned within 1 day first; "within 7 days" would say less, so it is not given.
    expect(await names(DAY_SEC)).toEqual(['r']);
    expect(await names(WEEK_SEC)).toEqual([]);
  });

  it('markExpiring (optional): claims at most `limit` per call, the rest on the next calls', async (store) => {
    const s = store();
    if (s.markExpiring === undefined) return;
    const f = fixtures();
    const base = 1200 * DAY;
    for (let i = 0; i < 5; i++) {
      const r = f.record({ id: f.id(`t${i}`), name: `t${i}`, createdAt: at(base - DAY), expiresAt: at(base + (i + 1) * HOUR) });
      expect(await s.insert(r, at(base - DAY))).toBe('ok');
    }
    const batches: string[][] = [];
    for (let i = 0; i < 4; i++)
      batches.push((await s.markExpiring(DAY_SEC, at(base), 2)).filter((r) => r.ownerId === f.owner()).map((r) => r.name));
    expect(batches).toEqual([['t0', 't1'], ['t2', 't3'], ['t4'], []]);
  });

  it('race: parallel markExpiring calls (on two servers when the suite has a twin) claim each token once', async (store, twin) => {
    const s = store();
    const t = twin() ?? s;
    const marks = [s.markExpiring?.bind(s), t.markExpiring?.bind(t)];
    const [one, two] = marks;
    if (one === undefined || two === undefined) return;
    const f = fixtures();
    const base = 1300 * DAY;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = f.record({ id: f.id(`t${i}`), name: `t${i}`, createdAt: at(base - DAY), expiresAt: at(base + (i + 1) * HOUR) });
      expect(await s.insert(r, at(base - DAY))).toBe('ok');
      ids.push(r.id);
    }
    const calls = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? one : two)(WEEK_SEC, at(base + i * 1000), 7));
    const claimed = (await Promise.all(calls)).flat().filter((r) => r.ownerId === f.owner());
    // Each token at most once; with 8 calls of 7, every one of the 20 is claimed.
    expect(claimed.map((r) => r.id).sort()).toEqual([...ids].sort());
  });
}
