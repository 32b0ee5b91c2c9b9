/**
 * Issue 20, part 2: every session is revocable. `issueSession` stores a record
 * (kind `session`) that `authenticate` reads on every request, so
 * `auth.revokeToken` and `client(p).sessions.revoke` hold on the next request;
 * a session minted before sessions had records is refused (sign in again);
 * token management never lists sessions, and only a session may see or end them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../src/errors';
import type { AuthEvent } from '../../src/service';
import { MemoryTokenStore, type TokenStore } from '../../src/stores';
import { mintToken, newTokenId } from '../../src/tokens';
import { testAuth, sharedRing, type TestAuth } from '../support/auth';
import { DAY_MS, T0 } from '../support/clock';
import { rejection } from '../support/errors';
import { record } from '../support/record';

const HOUR = 3_600_000;

function reasonOf(err: unknown): string | undefined {
  return err instanceof AuthenticationError ? err.reason : undefined;
}

/** A session JWT this instance's keys sign, with no record: what svc-auth minted before sessions had records. */
async function preUpgradeSession(userId: string, lifetimeSec = 12 * 3600): Promise<string> {
  const iat = T0 / 1000;
  return mintToken(await sharedRing(), {
    kind: 'session',
    iss: 'https://svc.test',
    sub: userId,
    jti: newTokenId(),
    iat,
    exp: iat + lifetimeSec,
  });
}

async function signIn(s: TestAuth, userId = 'alice', name?: string) {
  const token = await s.auth.issueSession(userId, name === undefined ? undefined : { name });
  return { token, p: await s.auth.authenticate(token) };
}

describe('issueSession stores a record', () => {
  it('kind session, the JWT jti as id, no scopes, no parent, name "session" by default or as given; createdAt/expiresAt are iat/exp', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    const { p: laptop } = await signIn(s, 'alice', 'laptop');
    const [rec] = (await s.store.readChain(p.tokenId as string)) ?? [];
    expect(rec).toMatchObject({ id: p.tokenId, kind: 'session', ownerId: 'alice', name: 'session', scopes: null, parentId: null });
    expect(rec?.createdAt.getTime()).toBe(T0);
    expect(rec?.expiresAt.getTime()).toBe(T0 + 12 * HOUR);
    expect((await s.store.readChain(laptop.tokenId as string))?.[0]?.name).toBe('laptop');
  });

  it('bad options are refused together, before anything is stored', async () => {
    const s = await testAuth();
    const err = await rejection(s.auth.issueSession('alice', { expiresIn: '31d', name: 'my laptop' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText).sort()).toEqual(['expiresIn', 'name']);
    for (const name of ['', 'a'.repeat(65), 'a/b', 7, null]) {
      expect(await rejection(s.auth.issueSession('alice', { name: name as string }))).toBeInstanceOf(ValidationError);
    }
    expect(await rejection(s.auth.issueSession('alice', { label: 'x' } as never))).toBeInstanceOf(ValidationError);
    expect(await s.store.listByOwner('alice')).toEqual([]);
  });

  it('a store that fails or refuses the record: UnavailableError and no token', async () => {
    const store = new MemoryTokenStore();
    const refusing: TokenStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      insert: () => Promise.resolve('name_taken' as const),
    });
    const failing: TokenStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      insert: () => Promise.reject(new Error('disk full')),
    });
    for (const tokens of [refusing, failing]) {
      const s = await testAuth({ tokens });
      expect(await rejection(s.auth.issueSession('alice'))).toBeInstanceOf(UnavailableError);
    }
  });
});

describe('a session is read on every request (T5)', () => {
  it('auth.revokeToken holds on the next request, also when the signature is cached', async () => {
    const s = await testAuth();
    const { token, p } = await signIn(s);
    await s.auth.authenticate(token); // the signature is cached now
    await s.auth.revokeToken(p.tokenId as string);
    const err = await rejection(s.auth.authenticate(token));
    expect(reasonOf(err)).toBe('revoked');
    expect((err as AuthenticationError).tokenId).toBe(p.tokenId);
  });

  it('a principal whose session was revoked may no longer manage tokens or sessions', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    await s.auth.revokeToken(p.tokenId as string);
    expect(reasonOf(await rejection(s.auth.client(p).token.create({ name: 'ci' })))).toBe('revoked');
    expect(reasonOf(await rejection(s.auth.client(p).token.list()))).toBe('revoked');
    expect(reasonOf(await rejection(s.auth.client(p).sessions.list()))).toBe('revoked');
  });

  it('a PAT created by a session is top-level: neither clamped to the session nor revoked with it', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    const { token, info } = await s.auth.client(p).token.create({ name: 'ci', expiresIn: '30d' });
    expect(info.parentId).toBeNull();
    expect(info.expiresAt.getTime()).toBe(T0 + 30 * DAY_MS);
    await s.auth.revokeToken(p.tokenId as string);
    expect((await s.auth.authenticate(token)).tokenName).toBe('ci');
  });

  it('last used: a session records lastUsedAt like a PAT (throttled, written off the request path)', async () => {
    const s = await testAuth({ lastUsedIntervalMs: 10_000 });
    const { token, p } = await signIn(s);
    s.clock.advance(30_000);
    await s.auth.authenticate(token);
    await s.auth.flush();
    const [mine] = await s.auth.client(p).sessions.list();
    expect(mine?.lastUsedAt?.getTime()).toBe(T0 + 30_000);
  });

  it('last used: a session shows where it was used from (address and user agent), so a strange sign-in stands out', async () => {
    const s = await testAuth({ lastUsedIntervalMs: 10_000 });
    const { token, p } = await signIn(s);
    s.clock.advance(30_000);
    await s.auth.authenticate(token, { address: '203.0.113.7', userAgent: 'curl/8.5.0' });
    await s.auth.flush();
    s.clock.advance(30_000);
    await s.auth.authenticate(token, { address: '198.51.100.2', userAgent: 'svc-cli' });
    await s.auth.flush();
    const [mine] = await s.auth.client(p).sessions.list();
    expect(mine?.lastUsed).toEqual({ at: new Date(T0 + 60_000), address: '198.51.100.2', userAgent: 'svc-cli' });
    expect(mine?.usedFrom.map((u) => u.address)).toEqual(['198.51.100.2', '203.0.113.7']);
    expect(Object.isFrozen(mine)).toBe(true);
  });

  it('hostile: a session JWT naming a PAT record, another user, or a session row given a parent is unknown', async () => {
    const s = await testAuth();
    const ring = await sharedRing();
    const iat = T0 / 1000;
    const pat = record({ id: newTokenId(), expiresAt: new Date(T0 + HOUR) });
    await s.store.insert(pat, new Date(T0));
    const asSession = await mintToken(ring, { kind: 'session', iss: 'https://svc.test', sub: 'alice', jti: pat.id, iat, exp: iat + 3600 });
    expect(reasonOf(await rejection(s.auth.authenticate(asSession)))).toBe('unknown');
    const { p } = await signIn(s, 'bob');
    const bobsAsAlice = await mintToken(ring, {
      kind: 'session',
      iss: 'https://svc.test',
      sub: 'alice',
      jti: p.tokenId as string,
      iat,
      exp: iat + 12 * 3600,
    });
    expect(reasonOf(await rejection(s.auth.authenticate(bobsAsAlice)))).toBe('unknown');
    const child = record({ id: newTokenId(), kind: 'session', name: 'session', parentId: pat.id, expiresAt: new Date(T0 + HOUR) });
    await s.store.insert(child, new Date(T0));
    const withParent = await mintToken(ring, {
      kind: 'session',
      iss: 'https://svc.test',
      sub: 'alice',
      jti: child.id,
      iat,
      exp: iat + 3600,
    });
    expect(reasonOf(await rejection(s.auth.authenticate(withParent)))).toBe('unknown');
  });
});

describe('migration: sessions minted before the upgrade have no record', () => {
  it('are refused with reason unknown and a message that says to sign in again', async () => {
    const s = await testAuth();
    const old = await preUpgradeSession('alice');
    const err = await rejection(s.auth.authenticate(old));
    expect(reasonOf(err)).toBe('unknown');
    expect((err as Error).message).toMatch(/sign in again/);
    // A new sign-in works at once.
    expect((await signIn(s)).p.kind).toBe('session');
  });

  it('the refusal is an auth.failed event naming the user and the session id, never the token', async () => {
    const events: AuthEvent[] = [];
    const s = await testAuth({ onEvent: (e) => void events.push(e) });
    const old = await preUpgradeSession('alice');
    await rejection(s.auth.authenticate(old));
    await s.auth.flush();
    expect(events).toEqual([
      expect.objectContaining({
        type: 'auth.failed',
        reason: 'unknown',
        actor: expect.objectContaining({ kind: 'session', userId: 'alice' }),
      }),
    ]);
    expect(JSON.stringify(events)).not.toContain(old.split('.')[2]);
  });
});

describe('client(p).sessions', () => {
  it('list: the user own sessions only, every status, in issue order, the current one marked; no PATs or component tokens', async () => {
    const s = await testAuth({ lastUsedIntervalMs: 0 });
    const { p: phone } = await signIn(s, 'alice', 'phone');
    const { p: laptop } = await signIn(s, 'alice', 'laptop');
    await signIn(s, 'bob');
    await s.auth.issueSession('alice', { name: 'short', expiresIn: '1h' });
    await s.auth.client(laptop).token.create({ name: 'ci' });
    await s.auth.issueComponentToken('alice');
    await s.auth.revokeToken(phone.tokenId as string);
    s.clock.advance(2 * HOUR);
    const list = await s.auth.client(laptop).sessions.list();
    expect(list.map((x) => [x.name, x.status, x.current])).toEqual([
      ['phone', 'revoked', false],
      ['laptop', 'active', true],
      ['short', 'expired', false],
    ]);
    expect(list[0]).toEqual({
      id: phone.tokenId,
      name: 'phone',
      description: null,
      status: 'revoked',
      createdAt: new Date(T0),
      expiresAt: new Date(T0 + 12 * HOUR),
      revokedAt: new Date(T0),
      lastUsedAt: null,
      lastUsed: null,
      usedFrom: [],
      current: false,
    });
    expect(Object.isFrozen(list[0])).toBe(true);
  });

  it('revoke: ends another session of the user on its next request; an ended one is returned unchanged', async () => {
    const events: AuthEvent[] = [];
    const s = await testAuth({ onEvent: (e) => void events.push(e) });
    const { token: phoneToken, p: phone } = await signIn(s, 'alice', 'phone');
    const { p: laptop } = await signIn(s, 'alice', 'laptop');
    s.clock.advance(1000);
    const ended = await s.auth.client(laptop).sessions.revoke(phone.tokenId as string);
    expect(ended).toMatchObject({ id: phone.tokenId, status: 'revoked', revokedAt: new Date(T0 + 1000), current: false });
    expect(reasonOf(await rejection(s.auth.authenticate(phoneToken)))).toBe('revoked');
    s.clock.advance(1000);
    expect((await s.auth.client(laptop).sessions.revoke(phone.tokenId as string)).revokedAt).toEqual(new Date(T0 + 1000));
    await s.auth.flush();
    expect(events.filter((e) => e.type === 'token.revoked')).toEqual([
      expect.objectContaining({
        actor: { kind: 'session', userId: 'alice', tokenId: laptop.tokenId, tokenName: null },
        tokenId: phone.tokenId,
        revokedIds: [phone.tokenId],
      }),
    ]);
  });

  it('revoke: the current session too (sign out), after which it may do nothing more', async () => {
    const s = await testAuth();
    const { token, p } = await signIn(s);
    expect((await s.auth.client(p).sessions.revoke(p.tokenId as string)).current).toBe(true);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('revoked');
    expect(reasonOf(await rejection(s.auth.client(p).sessions.list()))).toBe('revoked');
  });

  it('revoke: another user session, a PAT id, a component id or an unknown id is NotFound, and nothing changes', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    const { token: bobToken, p: bob } = await signIn(s, 'bob');
    const { info } = await s.auth.client(p).token.create({ name: 'ci' });
    const component = await s.auth.authenticate(await s.auth.issueComponentToken('alice'));
    for (const id of [bob.tokenId, info.id, component.tokenId, newTokenId()]) {
      const err = await rejection(s.auth.client(p).sessions.revoke(id as string));
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as Error).message).toBe('no session with this id among your sessions');
    }
    expect((await s.auth.authenticate(bobToken)).userId).toBe('bob');
    expect((await s.auth.client(p).token.get('ci')).status).toBe('active');
  });

  it('revoke: an id that is not a string of 1 to 256 characters is a ValidationError', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    for (const bad of ['', 'x'.repeat(257), 42, null, undefined, { toString: () => 'x' }]) {
      expect(await rejection(s.auth.client(p).sessions.revoke(bad as string))).toBeInstanceOf(ValidationError);
    }
  });

  it('a PAT or a component token is refused every call (a token handed to a script never ends its user sign-ins)', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    const { token } = await s.auth.client(p).token.create({ name: 'ci' });
    const pat = await s.auth.authenticate(token);
    const component = await s.auth.authenticate(await s.auth.issueComponentToken('alice'));
    for (const caller of [pat, component]) {
      expect(await rejection(s.auth.client(caller).sessions.list())).toBeInstanceOf(ForbiddenError);
      expect(await rejection(s.auth.client(caller).sessions.revoke(p.tokenId as string))).toBeInstanceOf(ForbiddenError);
    }
    expect((await s.auth.client(p).sessions.list())[0]?.status).toBe('active');
  });

  it('principalFor (no token, no record): lists and ends the user sessions, none of them current', async () => {
    const s = await testAuth();
    const { token, p } = await signIn(s);
    const admin = await s.auth.principalFor('alice');
    expect((await s.auth.client(admin).sessions.list()).map((x) => x.current)).toEqual([false]);
    await s.auth.client(admin).sessions.revoke(p.tokenId as string);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('revoked');
  });

  it('a copy of a principal gets no client (ValidationError), as for token', async () => {
    const s = await testAuth();
    const { p } = await signIn(s);
    expect(() => s.auth.client({ ...p })).toThrow(ValidationError);
  });
});

describe('token management never lists sessions', () => {
  it('token.list, token.get, token.revoke and auth.tokensOf see PATs only, even a PAT named like the sessions', async () => {
    const s = await testAuth();
    const { token, p } = await signIn(s, 'alice', 'laptop');
    await signIn(s); // named 'session'
    expect(await s.auth.client(p).token.list()).toEqual([]);
    expect(await s.auth.tokensOf('alice')).toEqual([]);
    for (const name of ['session', 'laptop']) {
      expect(await rejection(s.auth.client(p).token.get(name))).toBeInstanceOf(NotFoundError);
      expect(await rejection(s.auth.client(p).token.revoke(name))).toBeInstanceOf(NotFoundError);
    }
    const { info } = await s.auth.client(p).token.create({ name: 'session' });
    expect((await s.auth.client(p).token.list()).map((t) => t.id)).toEqual([info.id]);
    await s.auth.client(p).token.revoke('session');
    expect((await s.auth.authenticate(token)).userId).toBe('alice'); // the sessions are untouched
    expect((await s.auth.client(p).sessions.list()).every((x) => x.status === 'active')).toBe(true);
  });
});

describe('property: a session authenticates exactly while its record is neither revoked nor expired', () => {
  it('for any sessions, revocations and time steps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ hours: fc.integer({ min: 1, max: 48 }), revokeAt: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }) }),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 4 }),
        async (sessions, steps) => {
          const s = await testAuth();
          const issued = await Promise.all(
            sessions.map(async (x) => ({ ...x, token: await s.auth.issueSession('alice', { expiresIn: `${x.hours}h` }) })),
          );
          const ids = await Promise.all(issued.map(async (x) => (await s.auth.authenticate(x.token)).tokenId as string));
          let elapsedH = 0;
          for (const step of steps) {
            elapsedH += step;
            s.clock.advance(step * HOUR);
            for (const [i, x] of issued.entries()) {
              if (x.revokeAt !== undefined && x.revokeAt <= elapsedH) await s.auth.revokeToken(ids[i] as string);
            }
            for (const [i, x] of issued.entries()) {
              const revoked = x.revokeAt !== undefined && x.revokeAt <= elapsedH;
              const expired = elapsedH >= x.hours;
              const got = await s.auth.authenticate(x.token).then(
                (p) => (p.tokenId === ids[i] ? 'ok' : 'wrong'),
                (err: unknown) => reasonOf(err),
              );
              // An expired JWT is refused by its own `exp` before its record is read.
              expect(got).toBe(expired ? 'expired' : revoked ? 'revoked' : 'ok');
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
