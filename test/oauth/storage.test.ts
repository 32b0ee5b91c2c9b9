import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthStorage, type OAuthSecrets, type OAuthStorage } from '../../src/entries/oauth';
import { PostgresOAuthStorage } from '../../src/entries/postgres';
import { ValidationError } from '../../src/errors';
import { describeWithDb, newPool, tableName } from '../support/postgres';
import { codeFlow, startServer, token } from '../support/oauth';

const secrets = (tag: string): OAuthSecrets => ({
  version: 1,
  signingKeys: [{ kty: 'OKP', crv: 'Ed25519', x: tag, d: tag, kid: tag }],
  cookieKeys: ['c'.repeat(43)],
  formKey: 'f'.repeat(43),
});
const inAMinute = (): Date => new Date(Date.now() + 60_000);

/** The behaviour every OAuthStorage has, run against each implementation. */
function storageCases(make: () => OAuthStorage): void {
  let s: OAuthStorage;
  beforeAll(() => {
    s = make();
  });
  const id = (): string => `id-${Math.random().toString(36).slice(2)}`;

  it('stores and reads back an equal entry; a change to either object changes nothing stored', async () => {
    const k = id();
    const entry = { jti: k, kind: 'Grant', nested: { a: [1, 2] }, text: 'zero \u0000 and \ud800 lone' };
    await s.set('Grant', k, entry, inAMinute());
    entry.nested.a.push(3);
    const got = await s.get('Grant', k);
    expect(got).toEqual({ jti: k, kind: 'Grant', nested: { a: [1, 2] }, text: 'zero \u0000 and \ud800 lone' });
    (got as { jti: string }).jti = 'changed';
    expect((await s.get('Grant', k))?.jti).toBe(k);
    expect(await s.get('AccessToken', k)).toBeUndefined(); // kinds are apart
  });

  it('forgets an entry past its expiry, and keeps one without expiry', async () => {
    const gone = id();
    const kept = id();
    await s.set('Interaction', gone, { jti: gone }, new Date(Date.now() - 1_000));
    await s.set('Client', kept, { client_id: kept }, null);
    expect(await s.get('Interaction', gone)).toBeUndefined();
    expect(await s.get('Client', kept)).toEqual({ client_id: kept });
  });

  it('marks an entry consumed, and a replacement carries its own mark', async () => {
    const k = id();
    await s.set('AuthorizationCode', k, { jti: k }, inAMinute());
    expect((await s.get('AuthorizationCode', k))?.consumed).toBeUndefined();
    await s.consume('AuthorizationCode', k, new Date(1_800_000_000_000));
    expect((await s.get('AuthorizationCode', k))?.consumed).toBe(1_800_000_000);
    await s.consume('AuthorizationCode', 'unknown', new Date());
  });

  it('destroys one entry; revokeByGrantId forgets every entry of the grant, of every kind, and nothing else', async () => {
    const g = id();
    const [a, r, c, other] = [id(), id(), id(), id()];
    await s.set('AccessToken', a, { grantId: g }, inAMinute());
    await s.set('RefreshToken', r, { grantId: g }, inAMinute());
    await s.set('AuthorizationCode', c, { grantId: g }, inAMinute());
    await s.set('RefreshToken', other, { grantId: id() }, inAMinute());
    await s.destroy('AccessToken', a);
    expect(await s.get('AccessToken', a)).toBeUndefined();
    await s.revokeByGrantId(g);
    expect(await s.get('RefreshToken', r)).toBeUndefined();
    expect(await s.get('AuthorizationCode', c)).toBeUndefined();
    expect(await s.get('RefreshToken', other)).toBeDefined();
  });

  it('finds a device code by its user code and a session by its uid; a replacement moves the alias', async () => {
    const [dc, sess, code, uid] = [id(), id(), `U${id()}`, `uid-${id()}`];
    await s.set('DeviceCode', dc, { jti: dc, userCode: code }, inAMinute());
    await s.set('Session', sess, { jti: sess, uid }, inAMinute());
    expect((await s.findByUserCode(code))?.jti).toBe(dc);
    expect((await s.findByUid(uid))?.jti).toBe(sess);
    await s.set('DeviceCode', dc, { jti: dc, userCode: `${code}2` }, inAMinute());
    expect(await s.findByUserCode(code)).toBeUndefined();
    expect((await s.findByUserCode(`${code}2`))?.jti).toBe(dc);
    expect(await s.findByUid('nobody')).toBeUndefined();
  });

  it('initSecrets: the first secrets stored win, also for callers racing each other', async () => {
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((t) => s.initSecrets(secrets(t.repeat(43)))));
    const first = results[0] as OAuthSecrets;
    for (const r of results) expect(r).toEqual(first);
    expect(await s.initSecrets(secrets('z'.repeat(43)))).toEqual(first);
  });
}

describe('MemoryOAuthStorage', () => {
  storageCases(() => new MemoryOAuthStorage());

  it('is bounded: when full of live entries, set rejects instead of dropping one', async () => {
    const s = new MemoryOAuthStorage({ maxEntries: 2 });
    await s.set('Grant', 'a', {}, inAMinute());
    await s.set('Grant', 'b', {}, new Date(Date.now() - 1));
    await s.set('Grant', 'c', {}, inAMinute()); // the expired one made room
    await expect(s.set('Grant', 'd', {}, inAMinute())).rejects.toMatchObject({ code: 'unavailable' });
    expect(() => new MemoryOAuthStorage({ maxEntries: 0 })).toThrow(ValidationError);
  });

  it('holds registered clients in a budget of their own: a full one refuses clients, never grants', async () => {
    const s = new MemoryOAuthStorage({ maxEntries: 2, maxClients: 1 });
    await s.set('Client', 'c1', {}, inAMinute());
    await expect(s.set('Client', 'c2', {}, inAMinute())).rejects.toMatchObject({ code: 'unavailable' });
    await s.set('Client', 'c1', { again: true }, inAMinute()); // replacing is not growing
    await s.set('Grant', 'g1', {}, inAMinute());
    await s.set('Grant', 'g2', {}, inAMinute());
    await s.destroy('Client', 'c1');
    await s.set('Client', 'c2', {}, inAMinute());
    expect(s.size).toBe(3);
    expect(() => new MemoryOAuthStorage({ maxClients: 0 })).toThrow(ValidationError);
  });
});

describeWithDb(
  'PostgresOAuthStorage',
  'PostgreSQL OAuth storage tests',
  'test/oauth/storage.test.ts',
)('PostgresOAuthStorage', () => {
  const pool = newPool('svc-oauth-storage');
  const table = tableName('svc_oauth');
  const storage = new PostgresOAuthStorage({ pool, table });
  beforeAll(async () => {
    await storage.migrate();
    await storage.migrate(); // twice: idempotent
  });
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  });

  storageCases(() => storage);

  it('refuses bad options when built', () => {
    expect(() => new PostgresOAuthStorage({ pool, table: 'Robert"); DROP TABLE x;--' })).toThrow(ValidationError);
    expect(() => new PostgresOAuthStorage({ pool: {} as never })).toThrow(ValidationError);
  });

  it('keys and secrets survive a restart: the server started again on the same table verifies and refreshes the tokens it issued before', async () => {
    const shared = new PostgresOAuthStorage({ pool, table: tableName('svc_oauth', 'restart') });
    await shared.migrate();
    const first = await startServer({ storage: shared });
    const { tokens, clientId } = await codeFlow(first.base);
    await first.close();
    // The server starts again (a new process in real life: nothing shared but the database), on its port.
    // Its token store survives too (the session records of the grants): here, the same objects.
    const second = await startServer({ storage: shared, auth: first.auth }, Number(new URL(first.base).port), first.tokens);
    try {
      expect(second.base).toBe(first.base);
      // Its keys are the first one's: the old access token verifies against the new JWKS ...
      const jwks = createRemoteJWKSet(new URL(`${second.base}/oauth/jwks`));
      await expect(jwtVerify(tokens.access_token as string, jwks, { issuer: first.base, typ: 'at+jwt' })).resolves.toBeDefined();
      // ... and the grant, client and refresh token are still there.
      const r = await token(second.base, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
      });
      expect(r.status).toBe(200);
      expect(decodeJwt(r.body.access_token as string).sub).toBe('alice');
    } finally {
      await second.close();
      await pool.query(`DROP TABLE IF EXISTS ${tableName('svc_oauth', 'restart')}`);
    }
  });

  it('the code flow and refresh run on PostgreSQL', async () => {
    const own = new PostgresOAuthStorage({ pool, table: tableName('svc_oauth', 'flow') });
    await own.migrate();
    const s = await startServer({ storage: own });
    try {
      const { tokens, clientId } = await codeFlow(s.base);
      const r = await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
      expect(r.status).toBe(200);
      const replay = await token(s.base, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
      });
      expect(replay.body.error).toBe('invalid_grant');
    } finally {
      await s.close();
      await pool.query(`DROP TABLE IF EXISTS ${tableName('svc_oauth', 'flow')}`);
    }
  });

  it('a confidential client’s secret is never in the table (only its hash), and a registered client row expires', async () => {
    const own = new PostgresOAuthStorage({ pool, table: tableName('svc_oauth', 'secret') });
    await own.migrate();
    const s = await startServer({ storage: own });
    try {
      const res = await fetch(`${s.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['https://connector.example/cb'], token_endpoint_auth_method: 'client_secret_post' }),
      });
      const { client_id, client_secret } = (await res.json()) as { client_id: string; client_secret: string };
      expect(client_secret).toEqual(expect.any(String));
      const { rows } = await pool.query<{ entry: string; expires_at: Date | null }>(
        `SELECT entry, expires_at FROM ${tableName('svc_oauth', 'secret')} WHERE kind = 'Client' AND id = $1`,
        [client_id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.entry).not.toContain(client_secret);
      expect(rows[0]?.entry).toContain('sha256:');
      expect(rows[0]?.expires_at).toBeInstanceOf(Date);
    } finally {
      await s.close();
      await pool.query(`DROP TABLE IF EXISTS ${tableName('svc_oauth', 'secret')}`);
    }
  });

  it('a database that is down fails closed: calls reject with UnavailableError and the server does not start', async () => {
    const deadPool = newPool('svc-oauth-dead', { connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    const dead = new PostgresOAuthStorage({ pool: deadPool, timeoutMs: 1_000 });
    await expect(dead.get('Grant', 'x')).rejects.toMatchObject({ code: 'unavailable' });
    await expect(startServer({ storage: dead })).rejects.toMatchObject({ code: 'unavailable' });
    await deadPool.end();
  });
});
