import { describe, it, expect } from 'vitest';
import { AuthenticationError, UnavailableError, ValidationError } from '../../src/errors';
import { createAuth } from '../../src/service';
import { MemoryTokenStore, type RecordKind, type TokenRecord, type TokenStore } from '../../src/stores';
import { mintToken, newTokenId, generateKeyRing } from '../../src/tokens';
import { testAuth, sharedRing } from '../support/auth';
import { DAY_MS, T0 } from '../support/clock';
import { rejection } from '../support/errors';
import { record } from '../support/record';

function reasonOf(err: unknown): string | undefined {
  return err instanceof AuthenticationError ? err.reason : undefined;
}

async function alicePat(
  s: Awaited<ReturnType<typeof testAuth>>,
  input: Parameters<ReturnType<typeof s.auth.client>['token']['create']>[0],
) {
  const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
  return s.auth.client(me).token.create(input);
}

async function mintFor(rec: TokenRecord, kind: RecordKind = rec.kind, sub = rec.ownerId): Promise<string> {
  return mintToken(await sharedRing(), {
    kind,
    iss: 'https://svc.test',
    sub,
    jti: rec.id,
    iat: Math.floor(rec.createdAt.getTime() / 1000),
    exp: Math.floor(rec.expiresAt.getTime() / 1000),
  });
}

describe('createAuth options', () => {
  it('misuse fails when the object is built, with every issue listed', async () => {
    const err = await rejection(() =>
      createAuth({ issuer: '', keys: {} as never, members: {} as never, now: 5 as never, storeTimeoutMs: 0, bogus: 1 } as never),
    );
    expect(err).toBeInstanceOf(ValidationError);
    const paths = (err as ValidationError).issues.map((i) => i.pathText).sort();
    expect(paths).toEqual(['bogus', 'issuer', 'keys', 'members', 'now', 'storeTimeoutMs']);
  });

  it('refuses a look-alike key ring that generateKeyRing did not make', async () => {
    const fake = { publicJwks: () => ({ keys: [] }), exportPrivate: () => ({ keys: [] }), rotate: async () => fake, retire: () => fake };
    const err = await rejection(() => createAuth({ issuer: 'x', keys: fake as never, members: { rolesOf: () => ({}) } }));
    expect((err as ValidationError).issues.map((i) => i.pathText)).toEqual(['keys']);
  });

  it('refuses a tokens option that is not a TokenStore and out-of-range numbers', async () => {
    const err = await rejection(async () =>
      createAuth({
        issuer: 'x',
        keys: await sharedRing(),
        members: { rolesOf: () => ({}) },
        tokens: { insert() {} } as never,
        clockToleranceSec: -1,
        cache: { signatures: 1.5 },
        identityOf: 'svc:x' as never,
      }),
    );
    expect((err as ValidationError).issues.map((i) => i.pathText).sort()).toEqual([
      'cache.signatures',
      'clockToleranceSec',
      'identityOf',
      'tokens',
    ]);
  });

  it('refuses a non-object', () => {
    expect(() => createAuth(null as never)).toThrow(ValidationError);
  });
});

describe('authenticate: input checks', () => {
  it('a non-string is malformed, an empty string missing, more than 8 KiB malformed', async () => {
    const { auth } = await testAuth();
    expect(reasonOf(await rejection(auth.authenticate(42 as never)))).toBe('malformed');
    expect(reasonOf(await rejection(auth.authenticate('')))).toBe('missing');
    expect(reasonOf(await rejection(auth.authenticate('a'.repeat(10 * 1024 * 1024))))).toBe('malformed');
    expect(reasonOf(await rejection(auth.authenticate('not.a.jwt')))).toBe('malformed');
  });

  it('T2: a token of another key ring or another issuer is a signature failure', async () => {
    const { auth } = await testAuth();
    const other = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
    expect(reasonOf(await rejection(auth.authenticate(await other.issueSession('alice'))))).toBe('signature');
    const elsewhere = createAuth({ issuer: 'https://elsewhere', keys: await sharedRing(), members: { rolesOf: () => ({}) } });
    expect(reasonOf(await rejection(auth.authenticate(await elsewhere.issueSession('alice'))))).toBe('signature');
  });
});

describe('authenticate: sessions', () => {
  it('5.5: a session has a record, read on every request; it carries its id, no token name, and is limited by the role only', async () => {
    const store = new MemoryTokenStore();
    const reads: string[] = [];
    const counting: TokenStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      readChain: (id: string) => {
        reads.push(id);
        return store.readChain(id);
      },
    });
    const { auth } = await testAuth({ tokens: counting });
    const p = await auth.authenticate(await auth.issueSession('bob'));
    expect(p).toEqual({
      kind: 'session',
      userId: 'bob',
      tokenId: expect.any(String) as string,
      expiresAt: new Date(T0 + DAY_MS / 2),
      serviceAccount: null,
    });
    expect(Object.keys(p)).not.toContain('tokenName');
    expect(reads).toEqual([p.tokenId]);
    expect((await store.readChain(p.tokenId as string))?.[0]).toMatchObject({
      kind: 'session',
      ownerId: 'bob',
      scopes: null,
      parentId: null,
    });
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'role' });
  });

  it('T3: a session lasts 12h by default, at most 30d, and fails at once when expired', async () => {
    const s = await testAuth();
    const token = await s.auth.issueSession('alice', { expiresIn: '2h' });
    s.clock.advance(2 * 3600_000 - 1000);
    await s.auth.authenticate(token);
    s.clock.advance(1000);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('expired');
    expect(await rejection(s.auth.issueSession('alice', { expiresIn: '31d' }))).toBeInstanceOf(ValidationError);
    expect(await rejection(s.auth.issueSession('alice', { expires: '1h' } as never))).toBeInstanceOf(ValidationError);
  });

  it('T9: a user id that cannot form the default identity is refused unless identityOf is given', async () => {
    const s = await testAuth();
    expect(await rejection(s.auth.issueSession('alice@example.com'))).toBeInstanceOf(ValidationError);
    expect(await rejection(s.auth.issueSession('a\u200bb'))).toBeInstanceOf(ValidationError);
    expect(await rejection(s.auth.issueSession(7 as never))).toBeInstanceOf(ValidationError);
    const custom = await testAuth({ identityOf: (u) => `svc:corp/users/Identity/${u.replace(/[^A-Za-z0-9]/g, '_')}` });
    const p = await custom.auth.authenticate(await custom.auth.issueSession('alice@example.com'));
    expect(custom.auth.committer(p)).toBe('svc:corp/users/Identity/alice_example_com');
    expect(await rejection(custom.auth.issueSession('a b'))).toBeInstanceOf(ValidationError);
  });
});

describe('authenticate: PATs (T5)', () => {
  it('returns a frozen principal with the token id, name and expiry', async () => {
    const s = await testAuth();
    const { token, info } = await alicePat(s, { name: 'ci', committerIdentity: 'svc:acme/users/Identity/ci-bot' });
    const p = await s.auth.authenticate(token);
    expect(p).toEqual({
      kind: 'pat',
      userId: 'alice',
      tokenId: info.id,
      tokenName: 'ci',
      expiresAt: info.expiresAt,
      committerIdentity: 'svc:acme/users/Identity/ci-bot',
      serviceAccount: null,
    });
    expect(Object.isFrozen(p)).toBe(true);
  });

  it('A1: a copy of a principal carries no grant and is refused by authorize and client', async () => {
    const s = await testAuth();
    const p = await s.auth.authenticate((await alicePat(s, { name: 'ci' })).token);
    const copy = { ...p };
    expect(s.auth.authorize(copy, 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'invalid' });
    expect(() => s.auth.client(copy)).toThrow(ValidationError);
    expect(() => s.auth.committer(structuredClone(p))).toThrow(ValidationError);
  });

  it('A1 hostile: a Proxy over a real principal, or a forged object with its prototype, is refused by authorize and management', async () => {
    const s = await testAuth();
    const p = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const proxy = new Proxy(p, { get: (t, k) => (k === 'userId' ? 'bob' : Reflect.get(t, k)) });
    expect(() => s.auth.client(proxy)).toThrow(ValidationError);
    const forged = Object.assign(Object.create(Object.getPrototypeOf(p) as object) as object, { ...p, userId: 'bob' });
    expect(() => s.auth.client(forged as typeof p)).toThrow(ValidationError);
    expect(() => s.auth.committer(forged as typeof p)).toThrow(ValidationError);
    expect(Object.keys(p)).toEqual(['kind', 'userId', 'expiresAt', 'serviceAccount', 'tokenId']);
    expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(s.auth.authorize(forged as typeof p, 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'invalid' });
    expect(s.auth.authorize(structuredClone(p), 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'invalid' });
  });

  it('principal state belongs to one Auth instance: another instance refuses it for management', async () => {
    const s = await testAuth();
    const other = await testAuth();
    const p = await s.auth.authenticate(await s.auth.issueSession('alice'));
    expect(() => other.auth.client(p)).toThrow(ValidationError);
  });

  it('T5 hostile: a valid signature with no record is unknown', async () => {
    const s = await testAuth();
    const token = await mintFor(record({ id: newTokenId() }));
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('unknown');
  });

  it('T5 hostile: a record of another kind, owner or expiry than the JWT is unknown', async () => {
    const s = await testAuth();
    // One hour: a lifetime both kinds accept, so only the record check can refuse.
    const rec = record({ id: newTokenId(), expiresAt: new Date(T0 + 3600_000) });
    await s.store.insert(rec, new Date(T0));
    await s.auth.authenticate(await mintFor(rec));
    expect(reasonOf(await rejection(s.auth.authenticate(await mintFor(rec, 'component'))))).toBe('unknown');
    expect(reasonOf(await rejection(s.auth.authenticate(await mintFor(rec, 'session'))))).toBe('unknown');
    expect(reasonOf(await rejection(s.auth.authenticate(await mintFor(rec, 'pat', 'bob'))))).toBe('unknown');
    const longer = await mintToken(await sharedRing(), {
      kind: 'pat',
      iss: 'https://svc.test',
      sub: 'alice',
      jti: rec.id,
      iat: T0 / 1000,
      exp: T0 / 1000 + 2 * 3600,
    });
    expect(reasonOf(await rejection(s.auth.authenticate(longer)))).toBe('unknown');
  });

  it('T5 hostile: a chain with a missing ancestor or a foreign owner is unknown', async () => {
    const parent = record({ id: 'parent-id-0000000000', ownerId: 'bob' });
    const child = record({ id: 'child-id-00000000000', parentId: parent.id });
    const orphan = record({ id: 'orphan-id-0000000000', parentId: 'gone' });
    const chains = new Map<string, TokenRecord[]>([
      [child.id, [child, parent]],
      [orphan.id, [orphan]],
    ]);
    const store: TokenStore = {
      insert: async () => 'ok',
      readChain: async (id) => chains.get(id) ?? null,
      listByOwner: async () => [],
      revoke: async () => [],
    };
    const s = await testAuth({ tokens: store });
    expect(reasonOf(await rejection(s.auth.authenticate(await mintFor(child))))).toBe('unknown');
    expect(reasonOf(await rejection(s.auth.authenticate(await mintFor(orphan))))).toBe('unknown');
  });

  it('T5: revocation holds on the next request, also with a cached signature', async () => {
    const s = await testAuth();
    const { token, info } = await alicePat(s, { name: 'ci' });
    await s.auth.authenticate(token);
    await s.auth.revokeToken(info.id);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('revoked');
  });

  it('T5: a memory store whose readChain is replaced (subclass or spy) is read through it, failing closed', async () => {
    const s = await testAuth();
    const { token } = await alicePat(s, { name: 'ci' });
    await s.auth.authenticate(token);
    const store = s.store as MemoryTokenStore;
    store.readChain = () => Promise.reject(new Error('disk on fire'));
    expect(await rejection(s.auth.authenticate(token))).toBeInstanceOf(UnavailableError);
    class Gone extends MemoryTokenStore {
      override readChain(): Promise<null> {
        return Promise.resolve(null);
      }
    }
    const g = await testAuth({ tokens: new Gone() });
    // principalFor: a session token would be unknown to this store too.
    const pat = await g.auth.client(await g.auth.principalFor('alice')).token.create({ name: 'ci' });
    expect(reasonOf(await rejection(g.auth.authenticate(pat.token)))).toBe('unknown');
  });

  it('T5: an expired token fails at once, also with a cached signature', async () => {
    const s = await testAuth();
    const { token } = await alicePat(s, { name: 'ci', expiresIn: '1d' });
    s.clock.advance(DAY_MS - 1000);
    await s.auth.authenticate(token);
    s.clock.advance(1000);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('expired');
  });

  it('T5: an expired ancestor makes its descendants expired', async () => {
    const s = await testAuth();
    const parent = record({ id: newTokenId(), expiresAt: new Date(T0 + DAY_MS) });
    const child = record({ id: newTokenId(), name: 'child', parentId: parent.id, expiresAt: new Date(T0 + 2 * DAY_MS) });
    await s.store.insert(parent, new Date(T0));
    await s.store.insert(child, new Date(T0));
    const token = await mintFor(child);
    expect((await s.auth.authenticate(token)).expiresAt).toEqual(parent.expiresAt);
    s.clock.advance(DAY_MS);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('expired');
  });

  it('T5 hostile: a store that throws is UnavailableError, never an allow', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store });
    const { token } = await alicePat(s, { name: 'ci' });
    store.readChain = () => {
      throw new Error('connection reset');
    };
    expect(await rejection(s.auth.authenticate(token))).toBeInstanceOf(UnavailableError);
  });

  it('T5 hostile: a store that hangs times out as UnavailableError', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store, storeTimeoutMs: 20 });
    const { token } = await alicePat(s, { name: 'ci' });
    store.readChain = () => new Promise(() => {});
    expect(await rejection(s.auth.authenticate(token))).toBeInstanceOf(UnavailableError);
  });

  it('T5 hostile: a store that answers with junk is UnavailableError', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store });
    const { token } = await alicePat(s, { name: 'ci' });
    store.readChain = async () => [{ id: 'x' }] as never;
    expect(await rejection(s.auth.authenticate(token))).toBeInstanceOf(UnavailableError);
  });

  it('T5 hostile: a membership source that throws, hangs or returns bad roles is UnavailableError', async () => {
    const s = await testAuth();
    const session = await s.auth.issueSession('alice');
    const ring = await sharedRing();
    const variants: ((u: string) => unknown)[] = [
      () => {
        throw new Error('ldap down');
      },
      () => new Promise(() => {}),
      () => ({ orgs: { acme: 'god' } }),
      () => JSON.parse('{"orgs":{"__proto__":"owner"}}'),
    ];
    for (const rolesOf of variants) {
      const auth = createAuth({
        issuer: 'https://svc.test',
        keys: ring,
        members: { rolesOf: rolesOf as never },
        tokens: s.store,
        now: s.clock.now,
        storeTimeoutMs: 20,
      });
      expect(await rejection(auth.authenticate(session))).toBeInstanceOf(UnavailableError);
    }
  });

  it('a clock that returns an invalid date is UnavailableError', async () => {
    const s = await testAuth({ now: () => new Date(Number.NaN) });
    expect(await rejection(s.auth.authenticate('a.b.c'))).toBeInstanceOf(UnavailableError);
  });
});

describe('authenticateRequest', () => {
  it('H1: reads the Bearer header of a fetch Request', async () => {
    const s = await testAuth();
    const token = await s.auth.issueSession('alice');
    const p = await s.auth.authenticateRequest(new Request('http://x/api/whoami', { headers: { authorization: `Bearer ${token}` } }));
    expect(p.userId).toBe('alice');
    expect(reasonOf(await rejection(s.auth.authenticateRequest(new Request('http://x/'))))).toBe('missing');
  });
});

describe('component tokens (T3)', () => {
  it('authenticate as kind component with their scopes; default 1h, at most 1d', async () => {
    const s = await testAuth();
    const token = await s.auth.issueComponentToken('alice', { scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const p = await s.auth.authenticate(token);
    expect(p.kind).toBe('component');
    expect(p.tokenName).toMatch(/^component-[A-Za-z0-9_-]{8}$/);
    expect(p.expiresAt).toEqual(new Date(T0 + 3600_000));
    expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(s.auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    expect(await rejection(s.auth.issueComponentToken('alice', { expiresIn: '2d' }))).toBeInstanceOf(ValidationError);
    expect(await rejection(s.auth.issueComponentToken('alice', { scopes: [] }))).toBeInstanceOf(ValidationError);
  });

  it('T3: revokeToken revokes a component token server-side', async () => {
    const s = await testAuth();
    const token = await s.auth.issueComponentToken('alice');
    const p = await s.auth.authenticate(token);
    await s.auth.revokeToken(p.tokenId as string);
    expect(reasonOf(await rejection(s.auth.authenticate(token)))).toBe('revoked');
    await s.auth.revokeToken('no-such-token');
    expect(await rejection(s.auth.revokeToken(5 as never))).toBeInstanceOf(ValidationError);
  });
});
