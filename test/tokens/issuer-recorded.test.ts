/**
 * A recorded trusted issuer (`recorded: true`, what svc-auth/oauth's
 * trustedIssuerFor sets): its tokens are found by their jti, and accepted only
 * with their session record under their grant's record, read on every request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth, type Auth } from '../../src/service';
import { MemoryTokenStore, type TokenRecord } from '../../src/stores';
import { generateKeyRing } from '../../src/tokens';
import { ValidationError } from '../../src/errors';
import { startKeyServer, type KeyServer, type SigningKey } from '../support/key-server';

const AUD = 'https://svc.example/mcp';

function record(id: string, parentId: string | null, expSec: number, extra: Partial<TokenRecord> = {}): TokenRecord {
  const now = Math.floor(Date.now() / 1000);
  return {
    id,
    kind: 'session',
    ownerId: 'alice',
    name: 'oauth-test',
    description: null,
    scopes: null,
    parentId,
    createdAt: new Date(now * 1000),
    expiresAt: new Date(expSec * 1000),
    revokedAt: null,
    committerIdentity: null,
    ...extra,
  };
}

describe('trusted issuers with recorded: true', () => {
  let idp: KeyServer & { first: SigningKey };
  let store: MemoryTokenStore;
  let auth: Auth;
  beforeAll(async () => {
    idp = await startKeyServer();
    store = new MemoryTokenStore();
    auth = createAuth({
      issuer: 'svc-rec',
      keys: await generateKeyRing(),
      members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
      tokens: store,
      trustedIssuers: [{ issuer: idp.issuer, audience: AUD, jwksUri: idp.jwksUri, recorded: true }],
    });
  });
  afterAll(() => idp.close());

  const exp = (): number => Math.floor(Date.now() / 1000) + 600;
  const sign = (claims: Record<string, unknown>): Promise<string> =>
    idp.sign(idp.first, { iss: idp.issuer, aud: AUD, sub: 'alice', ...claims });

  it('accepts a token whose record sits under a live grant record, and refuses it once the grant is revoked', async () => {
    const e = exp();
    await store.insert(record('grant-aaaaaaaaaaaaaaaa', null, e + 3600), new Date());
    await store.insert(record('token-aaaaaaaaaaaaaaaa', 'grant-aaaaaaaaaaaaaaaa', e), new Date());
    const t = await sign({ jti: 'token-aaaaaaaaaaaaaaaa', exp: e, scope: 'repo:read' });
    await expect(auth.authenticate(t)).resolves.toMatchObject({ kind: 'session', userId: 'alice' });
    await auth.revokeToken('grant-aaaaaaaaaaaaaaaa');
    await expect(auth.authenticate(t)).rejects.toMatchObject({ reason: 'revoked' });
  });

  it('refuses a token with no jti (malformed), with no record (unknown: sign in again), and one whose record does not fit', async () => {
    await expect(auth.authenticate(await sign({ exp: exp() }))).rejects.toMatchObject({ reason: 'malformed' });
    await expect(auth.authenticate(await sign({ jti: 'nobody-aaaaaaaaaaaaaa', exp: exp() }))).rejects.toMatchObject({
      reason: 'unknown',
      message: /sign in again/,
    });
    const e = exp();
    await store.insert(record('grant-bbbbbbbbbbbbbbbb', null, e + 3600), new Date());
    // Forged parents and owners: a record with no grant above it, another user's, another expiry.
    await store.insert(record('lone-bbbbbbbbbbbbbbbbb', null, e), new Date());
    await store.insert(record('other-bbbbbbbbbbbbbbbb', 'grant-bbbbbbbbbbbbbbbb', e, { ownerId: 'mallory' }), new Date());
    await store.insert(record('later-bbbbbbbbbbbbbbbb', 'grant-bbbbbbbbbbbbbbbb', e + 60), new Date());
    for (const jti of ['lone-bbbbbbbbbbbbbbbbb', 'other-bbbbbbbbbbbbbbbb', 'later-bbbbbbbbbbbbbbbb']) {
      await expect(auth.authenticate(await sign({ jti, exp: e }))).rejects.toMatchObject({ reason: 'unknown' });
    }
  });

  it('a PAT or session record id presented as a recorded issuer token’s jti is refused', async () => {
    const me = await auth.authenticate(await auth.issueSession('alice'));
    const pat = await auth.client(me).token.create({ name: 'ci' });
    await expect(auth.authenticate(await sign({ jti: pat.info.id, exp: exp() }))).rejects.toMatchObject({ reason: 'unknown' });
    await expect(auth.authenticate(await sign({ jti: me.tokenId, exp: exp() }))).rejects.toMatchObject({ reason: 'unknown' });
  });

  it('checks the option when built', async () => {
    const keys = await generateKeyRing();
    let caught: unknown;
    try {
      createAuth({
        issuer: 'svc-rec',
        keys,
        members: { rolesOf: () => ({}) },
        trustedIssuers: [{ issuer: 'https://idp.example', audience: AUD, recorded: 'yes' as never }],
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues.map((i) => i.pathText)).toEqual(['trustedIssuers[0].recorded']);
  });
});
