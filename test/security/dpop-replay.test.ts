/**
 * A DPoP proof is used once: by one server, and by every server sharing the
 * token store (its `claimProof`: the memory store in one process, PostgreSQL
 * across many). The token is a trusted issuer's, bound to the proof's key.
 */
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { createAuth, type Auth } from '../../src/service';
import { MemoryTokenStore, type TokenStore } from '../../src/stores';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { generateKeyRing } from '../../src/tokens';
import { AUDIENCE, issuerSetup, type IssuerSetup } from '../support/issuer-fixture';
import { describeWithDb, newPool, tableName } from '../support/postgres';

const URL_ = 'https://api.svc.test/api/whoami';
let s: IssuerSetup;
beforeEach(async () => {
  s = await issuerSetup();
});
afterEach(async () => {
  await s.ks.close();
});

async function twoServers(tokens: () => TokenStore): Promise<[Auth, Auth]> {
  const k = s.ks.first;
  const keys = await generateKeyRing();
  const make = (): Auth =>
    createAuth({
      issuer: 'https://svc.test',
      keys,
      tokens: tokens(),
      members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
      now: s.clock.now,
      trustedIssuers: [{ issuer: s.ks.issuer, audience: AUDIENCE, jwks: { keys: [{ ...k.publicJwk, kid: k.kid, alg: k.alg }] } }],
    });
  return [make(), make()];
}

async function boundRequest(): Promise<{ token: string; proof: string }> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA');
  const jwk = await exportJWK(publicKey);
  const token = await s.ks.sign(s.ks.first, s.claims({ jti: 'bound-1', cnf: { jkt: await calculateJwkThumbprint(jwk) } }));
  const proof = await new SignJWT({ htm: 'GET', htu: URL_, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url') })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk })
    .setIssuedAt(Math.floor(s.clock.now().getTime() / 1000))
    .sign(privateKey);
  return { token, proof };
}

const request = (token: string, proof: string): Request => new Request(URL_, { headers: { authorization: `DPoP ${token}`, dpop: proof } });

async function replayRefused(a: Auth, b: Auth): Promise<void> {
  const { token, proof } = await boundRequest();
  expect((await a.authenticateRequest(request(token, proof))).userId).toBe(s.user('alice'));
  const err = await b.authenticateRequest(request(token, proof)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AuthenticationError);
  expect((err as AuthenticationError).reason).toBe('dpop');
}

describe('DPoP replay', () => {
  it('replayed proof on the same server: refused', async () => {
    const [a] = await twoServers(() => new MemoryTokenStore());
    await replayRefused(a, a);
  });

  it('replayed proof on the same server, with a store that has no replay cache: refused by the instance cache', async () => {
    const memory = new MemoryTokenStore();
    const bare: TokenStore = {
      insert: (r, n) => memory.insert(r, n),
      readChain: (id) => memory.readChain(id),
      listByOwner: (o) => memory.listByOwner(o),
      revoke: (ids, at) => memory.revoke(ids, at),
    };
    const [a] = await twoServers(() => bare);
    await replayRefused(a, a);
  });

  it('replayed proof on another server sharing the memory store: refused', async () => {
    const shared = new MemoryTokenStore();
    const [a, b] = await twoServers(() => shared);
    await replayRefused(a, b);
  });

  it('a bound token without a proof (authenticate, no request): refused as bound', async () => {
    const [a] = await twoServers(() => new MemoryTokenStore());
    const { token } = await boundRequest();
    const err = await a.authenticate(token).catch((e: unknown) => e);
    expect((err as AuthenticationError).reason).toBe('bound');
  });
});

describeWithDb(
  'DPoP replay across servers',
  'PostgreSQL DPoP replay test',
  'test/security/dpop-replay.test.ts',
)('DPoP replay on PostgreSQL', () => {
  const pool = newPool('dpop-replay');
  const t = tableName('svc_dpop');
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${t}`);
    await pool.query(`DROP TABLE IF EXISTS ${t}_dpop_proofs`);
    await pool.end();
  });

  it('replayed proof on a second server sharing PostgreSQL: refused', async () => {
    const store = new PostgresTokenStore({ pool, table: t });
    await store.migrate();
    const [a, b] = await twoServers(() => new PostgresTokenStore({ pool, table: t }));
    await replayRefused(a, b);
  });
});
