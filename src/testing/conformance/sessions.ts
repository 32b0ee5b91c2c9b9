/**
 * Conformance cases for session records (kind `session`, T3): `issueSession`
 * stores one per sign-in and `authenticate` reads it on every request, so a
 * store must keep them like any record, never hold their names against a PAT
 * (names are unique among PATs only, T7), and revoke them on the next read.
 * @module
 */
import { expect } from 'vitest';
import type { TokenRecord, TokenStore } from '../../stores';
import { at, DAY, fixtures, HOUR } from './fixtures';

/**
 * @internal Register the session record cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * sessionCases((name, run) => cases.push({ name, run: (s) => run(() => s) }));
 * ```
 */
export function sessionCases(it: (name: string, run: (store: () => TokenStore) => Promise<void>) => void): void {
  it('sessions: a session record round-trips through readChain and listByOwner (kind, no scopes, no parent)', async (store) => {
    const f = fixtures();
    const session = f.record({ id: f.id('s'), kind: 'session', name: 'session', createdAt: at(1000), expiresAt: at(12 * HOUR) });
    expect(await store().insert(session, at(1000))).toBe('ok');
    const chain = await store().readChain(session.id);
    expect(chain).toHaveLength(1);
    const got = chain?.[0] as TokenRecord;
    expect({ ...got, createdAt: got.createdAt.getTime(), expiresAt: got.expiresAt.getTime(), lastUsedAt: got.lastUsedAt ?? null }).toEqual({
      ...session,
      createdAt: session.createdAt.getTime(),
      expiresAt: session.expiresAt.getTime(),
      lastUsedAt: null,
    });
    const listed = await store().listByOwner(f.owner());
    expect(listed.map((r) => [r.id, r.kind])).toEqual([[session.id, 'session']]);
  });

  it('sessions: names are not unique among sessions, nor held against a PAT of the same name (T7 is for PATs)', async (store) => {
    const f = fixtures();
    const s1 = f.record({ id: f.id('s1'), kind: 'session', name: 'ci', expiresAt: at(DAY) });
    const s2 = f.record({ id: f.id('s2'), kind: 'session', name: 'ci', expiresAt: at(DAY) });
    expect(await store().insert(s1, at(0))).toBe('ok');
    expect(await store().insert(s2, at(0))).toBe('ok');
    // Active sessions named 'ci' leave the name free for a PAT ...
    expect(await store().insert(f.record({ id: f.id('pat'), name: 'ci' }), at(0))).toBe('ok');
    // ... and an active PAT named 'ci' refuses no session.
    expect(await store().insert(f.record({ id: f.id('s3'), kind: 'session', name: 'ci', expiresAt: at(DAY) }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('pat2'), name: 'ci' }), at(0))).toBe('name_taken');
    expect((await store().listByOwner(f.owner())).map((r) => r.id)).toEqual([s1.id, s2.id, f.id('pat'), f.id('s3')]);
  });

  it('sessions: revoking a session shows on its next read and touches no other record of the owner', async (store) => {
    const f = fixtures();
    const session = f.record({ id: f.id('s'), kind: 'session', name: 'session', expiresAt: at(DAY) });
    const other = f.record({ id: f.id('s2'), kind: 'session', name: 'session', expiresAt: at(DAY) });
    const pat = f.record({ id: f.id('pat'), name: 'deploy' });
    for (const r of [session, other, pat]) expect(await store().insert(r, at(0))).toBe('ok');
    expect((await store().readChain(session.id))?.[0]?.revokedAt).toBeNull();
    expect(await store().revoke([session.id], at(5000))).toEqual([session.id]);
    expect((await store().readChain(session.id))?.[0]?.revokedAt?.getTime()).toBe(at(5000).getTime());
    expect((await store().readChain(other.id))?.[0]?.revokedAt).toBeNull();
    expect((await store().readChain(pat.id))?.[0]?.revokedAt).toBeNull();
    expect(await store().revoke([session.id], at(9000))).toEqual([]);
  });

  it('sessions (touch optional): a session record takes last-used times like any record', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const session = f.record({ id: f.id('s'), kind: 'session', name: 'session', expiresAt: at(DAY) });
    expect(await s.insert(session, at(0))).toBe('ok');
    await s.touch([session.id], at(7000));
    const got = (await s.readChain(session.id))?.[0];
    expect(got?.lastUsedAt instanceof Date ? got.lastUsedAt.getTime() : null).toBe(at(7000).getTime());
    expect(got?.kind).toBe('session');
  });
}
