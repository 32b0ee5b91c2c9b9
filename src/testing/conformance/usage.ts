/**
 * Conformance cases for a record's usage fields: `allowedIps`, `usedFrom` and
 * `expiryWarnings` survive the round trip (a store that dropped `allowedIps`
 * would lift a token's network limit), and the optional `recordUse` keeps the
 * last few addresses the same way on every store, also when two servers
 * write at once; and the optional `touch` (last-used times), which a store
 * without it passes: it simply shows no last-used time.
 * @module
 */
import { expect } from 'vitest';
import type { TokenRecord, TokenStore, UsedFrom } from '../../stores';
import { at, fixtures, type CaseRegistrar } from './fixtures';

const ms = (d: Date | null | undefined): number | null => (d instanceof Date ? d.getTime() - at(0).getTime() : null);
/** `usedFrom` as `[address, ms after T0, userAgent]`, in the order the store keeps it. */
const used = (r: TokenRecord | undefined): [string, number | null, string | null][] =>
  (r?.usedFrom ?? []).map((u: UsedFrom) => [u.address, ms(u.at), u.userAgent]);
const head = async (s: TokenStore, id: string): Promise<TokenRecord | undefined> => (await s.readChain(id))?.[0];

/**
 * @internal Register the usage cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * usageCases((name, run) => cases.push({ name, run: (s, twin) => run(() => s, () => twin) }));
 * ```
 */
export function usageCases(it: CaseRegistrar): void {
  it('usage fields survive the round trip: allowedIps, usedFrom, expiryWarnings (readChain and listByOwner)', async (store) => {
    const f = fixtures();
    const limited = f.record({
      id: f.id('limited'),
      name: 'limited',
      allowedIps: ['203.0.113.0/24', '2001:db8::/32', '192.0.2.7/32'],
      usedFrom: [{ address: '203.0.113.7', at: at(500_000), userAgent: 'curl/8.5.0' }],
      expiryWarnings: [604_800],
    });
    const plain = f.record({ id: f.id('plain'), name: 'plain' });
    for (const r of [limited, plain]) expect(await store().insert(r, at(0))).toBe('ok');
    for (const got of [await head(store(), limited.id), (await store().listByOwner(f.owner())).find((r) => r.id === limited.id)]) {
      expect(got?.allowedIps).toEqual(['203.0.113.0/24', '2001:db8::/32', '192.0.2.7/32']);
      expect(used(got)).toEqual([['203.0.113.7', 500_000, 'curl/8.5.0']]);
      expect(got?.expiryWarnings).toEqual([604_800]);
    }
    const bare = await head(store(), plain.id);
    // Absent and null both mean "anywhere"; absent and empty both mean "none".
    expect(bare?.allowedIps ?? null).toBeNull();
    expect(bare?.usedFrom ?? []).toEqual([]);
    expect(bare?.expiryWarnings ?? []).toEqual([]);
  });

  it('recordUse (optional): lastUsedAt moves forward; usedFrom keeps each address with its time and user agent, newest first', async (store) => {
    const s = store();
    if (s.recordUse === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a' });
    const b = f.record({ id: f.id('b'), name: 'b' });
    for (const r of [a, b]) expect(await s.insert(r, at(0))).toBe('ok');
    await s.recordUse(
      [
        { id: a.id, address: '203.0.113.7', userAgent: 'curl/8.5.0' },
        { id: f.id('nobody'), address: '192.0.2.1', userAgent: null },
      ],
      at(1000),
    );
    await s.recordUse([{ id: a.id, address: '2001:db8::1', userAgent: null }], at(2000));
    // A use without an address moves the time only.
    await s.recordUse([{ id: a.id, address: null, userAgent: 'ignored' }], at(3000));
    let got = await head(s, a.id);
    expect(ms(got?.lastUsedAt)).toBe(3000);
    expect(used(got)).toEqual([
      ['2001:db8::1', 2000, null],
      ['203.0.113.7', 1000, 'curl/8.5.0'],
    ]);
    // The same address again: its entry moves to the front with the new time and user agent.
    await s.recordUse([{ id: a.id, address: '203.0.113.7', userAgent: 'curl/8.6.0' }], at(4000));
    got = await head(s, a.id);
    expect(used(got)).toEqual([
      ['203.0.113.7', 4000, 'curl/8.6.0'],
      ['2001:db8::1', 2000, null],
    ]);
    expect(ms(got?.lastUsedAt)).toBe(4000);
    expect(used(await head(s, b.id))).toEqual([]);
    expect(await s.readChain(f.id('nobody'))).toBeNull();
  });

  it('recordUse (optional): keeps the 5 newest distinct addresses (equal times by address); a late batch moves nothing back', async (store) => {
    const s = store();
    if (s.recordUse === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a' });
    expect(await s.insert(a, at(0))).toBe('ok');
    for (let i = 1; i <= 7; i++) await s.recordUse([{ id: a.id, address: `198.51.100.${i}`, userAgent: `ua-${i}` }], at(i * 1000));
    const kept = [7, 6, 5, 4, 3].map((i): [string, number, string] => [`198.51.100.${i}`, i * 1000, `ua-${i}`]);
    expect(used(await head(s, a.id))).toEqual(kept);
    // Late: older than every kept address, or older than the entry of its own address.
    await s.recordUse([{ id: a.id, address: '198.51.100.1', userAgent: 'late' }], at(500));
    await s.recordUse([{ id: a.id, address: '198.51.100.7', userAgent: 'late' }], at(6500));
    const got = await head(s, a.id);
    expect(used(got)).toEqual(kept);
    expect(ms(got?.lastUsedAt)).toBe(7000);
    // Equal times: ordered by address.
    await s.recordUse([{ id: a.id, address: '198.51.100.9', userAgent: null }], at(9000));
    await s.recordUse([{ id: a.id, address: '198.51.100.8', userAgent: null }], at(9000));
    expect(used(await head(s, a.id)).slice(0, 3)).toEqual([
      ['198.51.100.8', 9000, null],
      ['198.51.100.9', 9000, null],
      ['198.51.100.7', 7000, 'ua-7'],
    ]);
  });

  it('recordUse (optional): changes nothing else (revocation, scopes, allowedIps, expiry warnings stay)', async (store) => {
    const s = store();
    if (s.recordUse === undefined) return;
    const f = fixtures();
    const a = f.record({
      id: f.id('a'),
      scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }],
      allowedIps: ['203.0.113.0/24'],
      expiryWarnings: [86_400],
    });
    expect(await s.insert(a, at(0))).toBe('ok');
    expect(await s.revoke([a.id], at(1000))).toEqual([a.id]);
    const before = (await head(s, a.id)) as TokenRecord;
    await s.recordUse([{ id: a.id, address: '203.0.113.9', userAgent: null }], at(2000));
    const after = (await head(s, a.id)) as TokenRecord;
    expect({ ...after, lastUsedAt: null, usedFrom: [] }).toEqual({ ...before, lastUsedAt: null, usedFrom: [] });
    expect(used(after)).toEqual([['203.0.113.9', 2000, null]]);
  });

  it('race: two servers recording uses of one token at once lose no address', async (store, twin) => {
    const s = store();
    const t = twin() ?? s;
    if (s.recordUse === undefined || t.recordUse === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a') });
    expect(await s.insert(a, at(0))).toBe('ok');
    for (let round = 1; round <= 4; round++) {
      const time = at(round * 1000);
      await Promise.all([
        s.recordUse([{ id: a.id, address: `192.0.2.${round}`, userAgent: 'one' }], time),
        t.recordUse([{ id: a.id, address: `2001:db8::${round}`, userAgent: 'two' }], time),
      ]);
      const addresses = used(await head(s, a.id)).map(([address]) => address);
      expect(addresses).toContain(`192.0.2.${round}`);
      expect(addresses).toContain(`2001:db8::${round}`);
    }
  });
}

/**
 * @internal Register the `touch` cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * touchCases((name, run) => cases.push({ name, run: (s) => run(() => s) }));
 * ```
 */
export function touchCases(it: (name: string, run: (store: () => TokenStore) => Promise<void>) => void): void {
  const lastUsed = (r: TokenRecord | undefined): number | null =>
    r?.lastUsedAt instanceof Date ? r.lastUsedAt.getTime() - at(0).getTime() : null;

  it('touch (optional): sets lastUsedAt of each id, seen by readChain and listByOwner; unknown ids ignored', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a' });
    const b = f.record({ id: f.id('b'), name: 'b' });
    const c = f.record({ id: f.id('c'), name: 'c' });
    for (const r of [a, b, c]) expect(await s.insert(r, at(0))).toBe('ok');
    await s.touch([a.id, b.id, f.id('nobody')], at(5000));
    expect(lastUsed((await s.readChain(a.id))?.[0])).toBe(5000);
    expect(lastUsed((await s.readChain(b.id))?.[0])).toBe(5000);
    expect(lastUsed((await s.readChain(c.id))?.[0])).toBeNull();
    const listed = await s.listByOwner(f.owner());
    expect(listed.map(lastUsed)).toEqual([5000, 5000, null]);
    expect(await s.readChain(f.id('nobody'))).toBeNull();
  });

  it('touch (optional): never moves lastUsedAt back (a late batch), and moves it forward', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a' });
    expect(await s.insert(a, at(0))).toBe('ok');
    await s.touch([a.id], at(9000));
    await s.touch([a.id], at(4000));
    expect(lastUsed((await s.readChain(a.id))?.[0])).toBe(9000);
    await s.touch([a.id], at(12_000));
    expect(lastUsed((await s.readChain(a.id))?.[0])).toBe(12_000);
  });

  it('touch (optional): changes nothing else (revocation, expiry, scopes stay as they were)', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    expect(await s.insert(a, at(0))).toBe('ok');
    expect(await s.revoke([a.id], at(1000))).toEqual([a.id]);
    const before = (await s.readChain(a.id))?.[0] as TokenRecord;
    await s.touch([a.id], at(2000));
    const after = (await s.readChain(a.id))?.[0] as TokenRecord;
    expect({ ...after, lastUsedAt: null }).toEqual({ ...before, lastUsedAt: null });
    expect(after.revokedAt?.getTime()).toBe(at(1000).getTime());
    expect(lastUsed(after)).toBe(2000);
  });
}
