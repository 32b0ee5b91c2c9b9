/**
 * Attack: registration is unbounded. Anonymous registrations are limited per
 * client address (429 with Retry-After), fill a budget of their own in the
 * memory storage (a full store of clients never blocks the sign-in of a known
 * client), and a client no one approved is forgotten after a while.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryOAuthStorage } from '../../src/entries/oauth';
import { codeFlow, REDIRECT, register, startServer, type Running } from '../support/oauth';

const running: Running[] = [];
afterAll(async () => {
  for (const s of running) await s.close();
});

const registerRaw = (base: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ client_name: 'Flood', redirect_uris: [REDIRECT] }),
  });

describe('registration flood', () => {
  it('one address registering past clients.registrationsPerHour gets 429 with Retry-After; nothing is stored for it', async () => {
    const storage = new MemoryOAuthStorage();
    const s = await startServer({ storage, clients: { registrationsPerHour: 3 } });
    running.push(s);
    for (let i = 0; i < 3; i++) expect((await registerRaw(s.base)).status).toBe(201);
    const before = storage.size;
    const refused = await registerRaw(s.base);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(3_000);
    expect(wait).toBeLessThanOrEqual(3_600);
    expect(await refused.json()).toMatchObject({ error: 'invalid_request' });
    expect(storage.size).toBe(before);
  });

  it('without trustProxy a made-up X-Forwarded-For does not buy more registrations; with it, the proxy’s last hop counts', async () => {
    const direct = await startServer({ clients: { registrationsPerHour: 1 } });
    running.push(direct);
    expect((await registerRaw(direct.base, { 'x-forwarded-for': '203.0.113.1' })).status).toBe(201);
    expect((await registerRaw(direct.base, { 'x-forwarded-for': '203.0.113.2' })).status).toBe(429);
    const proxied = await startServer({ trustProxy: true, clients: { registrationsPerHour: 1 } });
    running.push(proxied);
    expect((await registerRaw(proxied.base, { 'x-forwarded-for': '198.51.100.7, 203.0.113.1' })).status).toBe(201);
    // The client wrote the first hop; the proxy added the last: the same last hop is the same client.
    expect((await registerRaw(proxied.base, { 'x-forwarded-for': '198.51.100.8, 203.0.113.1' })).status).toBe(429);
    expect((await registerRaw(proxied.base, { 'x-forwarded-for': '203.0.113.2' })).status).toBe(201);
  });

  it('a full client budget refuses a registration with 503 temporarily_unavailable (one log line), and a known client still signs in', async () => {
    const storage = new MemoryOAuthStorage({ maxEntries: 300, maxClients: 20 });
    const s = await startServer({ storage });
    running.push(s);
    const known = await register(s.base);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await registerRaw(s.base)).status);
    expect(statuses.filter((x) => x === 201)).toHaveLength(19);
    expect(statuses.filter((x) => x !== 201).every((x) => x === 503)).toBe(true);
    const refused = await registerRaw(s.base);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the server takes no more client registrations now; try again later',
    });
    expect(s.logs.filter((l) => l.startsWith('oauth: registration refused: '))).toHaveLength(22);
    expect(s.logs.some((l) => l.includes('server_error'))).toBe(false);
    const { tokens } = await codeFlow(s.base, { clientId: known.client_id });
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('a registered client no one approved is forgotten after clients.unusedClientTtlSec; an approved one is kept', async () => {
    let shift = 0;
    const storage = new MemoryOAuthStorage({ now: () => new Date(Date.now() + shift) });
    const s = await startServer({ storage, clients: { registrationsPerHour: 100, unusedClientTtlSec: 3_600 } });
    running.push(s);
    const unused = await register(s.base);
    const used = await codeFlow(s.base);
    shift = 2 * 3_600_000;
    expect(await storage.get('Client', unused.client_id)).toBeUndefined();
    expect(await storage.get('Client', used.clientId)).toBeDefined();
    // The approved client is kept as long as its grant: it refreshes.
    const refreshed = await fetch(`${s.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: used.tokens.refresh_token as string,
        client_id: used.clientId,
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
  });
});
