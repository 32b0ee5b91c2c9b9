/**
 * The store interface is the only door (issue 10): `authenticate` uses a
 * store's optional `readChainSync` whatever the store's class, and fails
 * closed when it throws or answers junk.
 */
import { describe, it, expect } from 'vitest';
import { AuthenticationError, UnavailableError } from '../../src/errors';
import { MemoryTokenStore, type InsertResult, type TokenRecord, type TokenStore } from '../../src/stores';
import { testAuth, type TestAuth } from '../support/auth';
import { rejection } from '../support/errors';

/** A user's own store: records in a Map, with the optional synchronous read. */
class OwnStore implements TokenStore {
  readonly rows = new Map<string, TokenRecord>();
  asyncReads = 0;
  syncReads = 0;
  sync: (id: string) => readonly TokenRecord[] | null | undefined = (id) => this.chain(id);

  chain(id: string): TokenRecord[] | null {
    const out: TokenRecord[] = [];
    for (let r = this.rows.get(id); r !== undefined; r = r.parentId === null ? undefined : this.rows.get(r.parentId)) out.push(r);
    return out.length === 0 ? null : out;
  }
  async insert(record: TokenRecord): Promise<InsertResult> {
    this.rows.set(record.id, record);
    return 'ok';
  }
  async readChain(id: string): Promise<TokenRecord[] | null> {
    this.asyncReads++;
    return this.chain(id);
  }
  readChainSync(id: string): readonly TokenRecord[] | null | undefined {
    this.syncReads++;
    return this.sync(id);
  }
  async listByOwner(ownerId: string): Promise<TokenRecord[]> {
    return [...this.rows.values()].filter((r) => r.ownerId === ownerId);
  }
  async revoke(ids: readonly string[], at: Date): Promise<string[]> {
    const done: string[] = [];
    for (const id of ids) {
      const r = this.rows.get(id);
      if (r !== undefined && r.revokedAt === null) {
        this.rows.set(id, { ...r, revokedAt: at });
        done.push(id);
      }
    }
    return done;
  }
}

async function patOf(s: TestAuth): Promise<string> {
  const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
  const { token } = await s.auth.client(me).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
  // Count only what each test does: the session above has a record and was read too.
  if (s.store instanceof OwnStore) {
    s.store.syncReads = 0;
    s.store.asyncReads = 0;
  }
  return token;
}

describe('TokenStore.readChainSync', () => {
  it("a user's own store implementing it is honoured: readChain is not called", async () => {
    const store = new OwnStore();
    const s = await testAuth({ tokens: store });
    const token = await patOf(s);
    const p = await s.auth.authenticate(token);
    expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(store.syncReads).toBe(1);
    expect(store.asyncReads).toBe(0);
  });

  it('T5: it is read on every call, so a revocation holds on the next request', async () => {
    const store = new OwnStore();
    const s = await testAuth({ tokens: store });
    const token = await patOf(s);
    const p = await s.auth.authenticate(token);
    await s.auth.revokeToken(p.tokenId as string);
    const err = await rejection(s.auth.authenticate(token));
    expect((err as AuthenticationError).reason).toBe('revoked');
    expect(store.syncReads).toBe(2);
  });

  it('undefined declines: the service asks readChain instead', async () => {
    const store = new OwnStore();
    store.sync = () => undefined;
    const s = await testAuth({ tokens: store });
    await s.auth.authenticate(await patOf(s));
    expect(store.asyncReads).toBe(1);
  });

  it('null is an unknown token, as from readChain', async () => {
    const store = new OwnStore();
    const s = await testAuth({ tokens: store });
    const token = await patOf(s);
    store.sync = () => null;
    expect(((await rejection(s.auth.authenticate(token))) as AuthenticationError).reason).toBe('unknown');
  });

  it('T5 hostile: a readChainSync that throws fails closed as UnavailableError, never an allow', async () => {
    const store = new OwnStore();
    const s = await testAuth({ tokens: store });
    const token = await patOf(s);
    store.sync = () => {
      throw new Error('replica lost');
    };
    expect(await rejection(s.auth.authenticate(token))).toBeInstanceOf(UnavailableError);
    expect(store.asyncReads).toBe(0);
  });

  it('T5 hostile: a readChainSync that answers junk fails closed as UnavailableError', async () => {
    const store = new OwnStore();
    const s = await testAuth({ tokens: store });
    const token = await patOf(s);
    for (const junk of [[{ id: 'x' }], 'chain', 42, {}]) {
      store.sync = () => junk as never;
      expect(await rejection(s.auth.authenticate(token))).toBeInstanceOf(UnavailableError);
    }
  });

  it('MemoryTokenStore implements it, and declines when readChain is replaced', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store });
    const token = await patOf(s);
    const p = await s.auth.authenticate(token);
    expect(store.readChainSync(p.tokenId as string)?.[0]?.id).toBe(p.tokenId);
    expect(store.readChainSync('nope')).toBeNull();
    store.readChain = async () => null;
    expect(store.readChainSync(p.tokenId as string)).toBeUndefined();
    expect(((await rejection(s.auth.authenticate(token))) as AuthenticationError).reason).toBe('unknown');
  });

  it('a synchronous membership source that throws fails closed as UnavailableError', async () => {
    const store = new OwnStore();
    const s = await testAuth({
      tokens: store,
      members: {
        rolesOf: () => {
          throw new Error('ldap down');
        },
      },
    });
    const ring = s.auth;
    expect(await rejection(ring.authenticate(await ring.issueSession('alice')))).toBeInstanceOf(UnavailableError);
  });
});
