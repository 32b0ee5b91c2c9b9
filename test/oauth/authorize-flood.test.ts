/**
 * Attack: `/authorize` is unbounded. Every sign-in started stores an
 * interaction: anonymous requests from one address are limited per minute
 * (a 429 page with Retry-After, nothing stored), device authorization too,
 * a flood from one address never blocks a sign-in from another, and on
 * PostgreSQL every stored row expires and expired rows are removed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryOAuthStorage } from '../../src/entries/oauth';
import { PostgresOAuthStorage } from '../../src/entries/postgres';
import { describeWithDb, newPool, tableName } from '../support/postgres';
import { authorize, codeFlow, register, type Running, startServer } from '../support/oauth';

const running: Running[] = [];
afterAll(async () => {
  for (const s of running) await s.close();
});

function startAuthorize(base: string, clientId: string, headers: Record<string, string> = {}): Promise<Response> {
  const { url } = authorize(base, clientId, { state: undefined });
  return fetch(url, { redirect: 'manual', headers: { accept: 'text/html', ...headers } });
}

describe('authorize flood', () => {
  it('one address starting sign-ins past clients.authorizationsPerMinute gets a 429 page with Retry-After; nothing is stored', async () => {
    const storage = new MemoryOAuthStorage();
    const s = await startServer({ storage, clients: { authorizationsPerMinute: 3 } });
    running.push(s);
    const { client_id } = await register(s.base);
    for (let i = 0; i < 3; i++) expect((await startAuthorize(s.base, client_id)).status).toBe(303);
    const before = storage.size;
    const refused = await startAuthorize(s.base, client_id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused.headers.get('content-security-policy')).toContain("default-src 'none'");
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await refused.text()).toContain('Too many sign-ins');
    expect(storage.size).toBe(before);
    // A hostile query is refused the same way, never a 500.
    const hostile = await fetch(`${s.base}/oauth/authorize?client_id=%00%ff&resource=${'x'.repeat(5_000)}`, { redirect: 'manual' });
    expect(hostile.status).toBe(429);
  });

  it('a flood from one address behind the proxy fills no storage: a sign-in from another address still works', async () => {
    const storage = new MemoryOAuthStorage({ maxEntries: 300 });
    const s = await startServer({ storage, trustProxy: true });
    running.push(s);
    const { client_id } = await register(s.base);
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await startAuthorize(s.base, client_id, { 'x-forwarded-for': '203.0.113.9' })).status);
    // The default: 30 a minute.
    expect(statuses.filter((x) => x === 303)).toHaveLength(30);
    expect(statuses.filter((x) => x !== 303).every((x) => x === 429)).toBe(true);
    expect(storage.size).toBeLessThan(100);
    const { tokens } = await codeFlow(s.base, { clientId: client_id });
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('device authorization past the limit gets a JSON 429 with Retry-After', async () => {
    const s = await startServer({ clients: { cli: true, authorizationsPerMinute: 2 } });
    running.push(s);
    const ask = (): Promise<Response> =>
      fetch(`${s.base}/oauth/device_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'svc-cli', resource: `${s.base}/` }).toString(),
      });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('clients.authorizationsPerMinute out of range is refused when the server is built', async () => {
    await expect(startServer({ clients: { authorizationsPerMinute: 0 } })).rejects.toThrow(/authorizationsPerMinute/);
  });
});

describeWithDb(
  'authorize flood on PostgreSQL',
  'PostgreSQL authorize flood tests',
  'test/oauth/authorize-flood.test.ts',
)('authorize flood on PostgreSQL', () => {
  const pool = newPool('svc-oauth-authorize-flood');
  const table = tableName('svc_oauth', 'flood');
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  });

  it('each sign-in started adds a row that expires; past the limit none is added; expired rows are ignored, then removed', async () => {
    const storage = new PostgresOAuthStorage({ pool, table });
    await storage.migrate();
    const s = await startServer({ storage, clients: { authorizationsPerMinute: 5 } });
    running.push(s);
    const { client_id } = await register(s.base);
    for (let i = 0; i < 20; i++) await startAuthorize(s.base, client_id);
    const count = async (where: string): Promise<number> =>
      Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)).rows[0]?.n);
    expect(await count(`kind = 'Interaction'`)).toBe(5);
    // Every row but the server's keys expires (interactions in 10 minutes).
    expect(await count(`kind <> 'Secrets' AND expires_at IS NULL`)).toBe(0);
    expect(await count(`kind = 'Interaction' AND expires_at > now() + interval '11 minutes'`)).toBe(0);
    const { rows } = await pool.query<{ id: string }>(`SELECT id FROM ${table} WHERE kind = 'Interaction' LIMIT 1`);
    const id = rows[0]?.id as string;
    await pool.query(`UPDATE ${table} SET expires_at = now() - interval '1 second' WHERE kind = 'Interaction'`);
    expect(await storage.get('Interaction', id)).toBeUndefined();
    // The storage's own writes remove expired rows now and then (bounded, one write in a hundred).
    for (let i = 0; i < 100; i++) await storage.set('Session', `s${i}`, {}, new Date(Date.now() + 60_000));
    expect(await count(`kind = 'Interaction'`)).toBe(0);
  });
});
