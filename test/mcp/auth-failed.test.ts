/**
 * Issue 18 follow-up: the `/mcp` handlers authenticate through `auth.authenticateRequest`, as every
 * guard does, so a header refused before any token is read (none, another scheme, two tokens, a
 * repeated header) is an `auth.failed` audit event on `/mcp` too; the SDK's AuthInfo still carries
 * the token text of an accepted header.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHandlers, type AuthInfo, type McpHandlerOptions } from '../../src/mcp';
import type { AuthEvent } from '../../src/service';
import { testAuth, type TestAuth } from '../support/auth';

const UNKNOWN = { kind: 'unknown', userId: null, tokenId: null, tokenName: null };
const events: AuthEvent[] = [];
const infos: AuthInfo[] = [];
let s: TestAuth;

beforeAll(async () => {
  s = await testAuth({ now: () => new Date(), onEvent: (e) => void events.push(e) });
});

const options = (): McpHandlerOptions => ({
  auth: s.auth,
  server: (_principal, info) => {
    infos.push(info);
    return new McpServer({ name: 't', version: '1' });
  },
});

/** Refused headers (raw [name, value] pairs as sent) and the reason of the auth.failed each must cause. */
const REFUSED: [string, [string, string][], string][] = [
  ['no header', [], 'missing'],
  ['another scheme', [['Authorization', 'Basic dXNlcjpwYXNz']], 'malformed'],
  ['two tokens in one header', [['Authorization', 'Bearer one two']], 'malformed'],
];

async function failures(): Promise<AuthEvent[]> {
  await s.auth.flush();
  return events.splice(0).filter((e) => e.type === 'auth.failed');
}

describe('header probing attack on /mcp: every refused Authorization header is an auth.failed event (was: none)', () => {
  it.each(REFUSED)('fetch: %s', async (_name, sent, reason) => {
    await failures();
    const h = mcpHandlers(options());
    const r = await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: sent, body: '{}' }));
    expect(r.status).toBe(401);
    expect(await failures()).toEqual([{ type: 'auth.failed', at: expect.any(Date), actor: UNKNOWN, reason }]);
  });

  describe('node:http', () => {
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      const h = mcpHandlers(options());
      server = createServer((req, res) => void h.mcp.node(req, res));
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    /** POST /mcp with headers exactly as given (a repeated header stays repeated). */
    const post = (sent: [string, string][]): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: [['Host', `127.0.0.1:${port}`], ...sent].flat() },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });

    it.each([
      ...REFUSED,
      [
        'a repeated header',
        [
          ['Authorization', 'Bearer a'],
          ['authorization', 'Bearer b'],
        ],
        'malformed',
      ] as [string, [string, string][], string],
    ])('node: %s', async (_name, sent, reason) => {
      await failures();
      expect(await post(sent)).toBe(401);
      expect(await failures()).toEqual([{ type: 'auth.failed', at: expect.any(Date), actor: UNKNOWN, reason }]);
    });
  });

  it('an accepted header adds no event, and AuthInfo.token is the token it carried', async () => {
    const session = await s.auth.issueSession('alice');
    await failures();
    infos.length = 0;
    const h = mcpHandlers(options());
    await h.mcp.fetch(
      new Request('http://127.0.0.1:1/mcp', {
        method: 'POST',
        headers: { authorization: `bearer  ${session}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }),
    );
    expect(infos.map((i) => i.token)).toEqual([session]);
    expect(await failures()).toEqual([]);
  });
});
