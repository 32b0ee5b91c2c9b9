/**
 * One table, every endpoint the library returns (`/mcp`, the credential revocation endpoint,
 * GitHub secret scanning), through every way it is mounted (node:http, Express as it is, fetch):
 * the same hostile body, the same body a middleware read first, the same `onError` that throws.
 * The edges once had a copy each and behaved differently (an already-read body was empty for
 * `/mcp` and a 500 for the leak endpoints; Express's `next` was read as the revoke body); one
 * table keeps one behaviour.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, type AuthenticationReason } from '../../src/errors';
import { httpError } from '../../src/http';
import { credentialRevocationHandler, githubSecretScanningHandler } from '../../src/leaks';
import { refusalText } from '../../src/mcp/auth-info';
import { mcpFetchHandlers, mcpNodeHandlers } from '../../src/mcp';
import { MemoryTokenStore } from '../../src/stores';
import { world, type World } from '../leaks/servers';

const MAX = 64;
let w: World;
let session = '';

beforeAll(async () => {
  w = await world(new MemoryTokenStore());
  session = await w.auth.issueSession('alice');
});

type OnError = (err: unknown) => void;
interface Endpoint {
  name: string;
  path: string;
  headers: () => Record<string, string>;
  node(onError: OnError): (req: IncomingMessage, res: ServerResponse, next?: unknown) => Promise<void>;
  fetch(onError: OnError): (req: Request) => Promise<Response>;
}

const json = { 'content-type': 'application/json' };
const server = () => new McpServer({ name: 't', version: '1' });
const github = (onError: OnError) =>
  githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keysUrl: 'http://127.0.0.1:9/keys', maxBodyBytes: MAX, onError });

const endpoints: Endpoint[] = [
  {
    name: '/mcp',
    path: '/mcp',
    headers: () => ({ ...json, authorization: `Bearer ${session}`, accept: 'application/json, text/event-stream' }),
    node: (onError) => mcpNodeHandlers({ auth: w.auth, server, maxBodyBytes: MAX, onError }).mcp,
    fetch: (onError) => mcpFetchHandlers({ auth: w.auth, server, maxBodyBytes: MAX, onError }).mcp,
  },
  {
    name: 'credential revocation',
    path: '/api/credentials/revoke',
    headers: () => json,
    node: (onError) => credentialRevocationHandler(w.auth, { maxBodyBytes: MAX, rateLimit: false, onError }).node,
    fetch: (onError) => credentialRevocationHandler(w.auth, { maxBodyBytes: MAX, rateLimit: false, onError }).fetch,
  },
  {
    name: 'GitHub secret scanning',
    path: '/hooks/github',
    headers: () => ({ ...json, 'github-public-key-identifier': 'k1', 'github-public-key-signature': 'AAAAAAAAAAAA' }),
    node: (onError) => github(onError).node,
    fetch: (onError) => github(onError).fetch,
  },
];

/** A middleware that reads the body and keeps it to itself (no `req.body`). */
const drain = (req: IncomingMessage, _res: unknown, next: () => void): void => {
  req.on('data', () => undefined).once('end', () => next());
};

type Mount = 'node' | 'express' | 'fetch';
const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

/** Send `body` to `e` mounted `how`; `consumed`: a middleware (or the caller, for fetch) reads the body first. */
async function send(e: Endpoint, how: Mount, onError: OnError, body: string, consumed = false): Promise<Response> {
  const init = { method: 'POST', headers: e.headers(), body };
  if (how === 'fetch') {
    const req = new Request(`http://127.0.0.1:1${e.path}`, init);
    if (consumed) await req.text();
    return e.fetch(onError)(req);
  }
  const handler = e.node(onError);
  let srv: Server;
  if (how === 'express') {
    const app = express();
    if (consumed) app.post(e.path, drain, handler);
    else app.post(e.path, handler);
    srv = createServer(app);
  } else {
    srv = createServer((req, res) => (consumed ? drain(req, res, () => void handler(req, res)) : void handler(req, res)));
  }
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return fetch(`http://127.0.0.1:${(srv.address() as AddressInfo).port}${e.path}`, init);
}

const mounts: Mount[] = ['node', 'express', 'fetch'];
const cases = endpoints.flatMap((e) => mounts.map((how) => [e.name, how, e] as const));

describe('every endpoint, every mount: one edge', () => {
  it.each(cases)('%s (%s): a body over the cap is a 413 in the H2 shape, with Content-Length on node', async (_n, how, e) => {
    const seen: unknown[] = [];
    const r = await send(e, how, (err) => seen.push(err), ' '.repeat(MAX + 1));
    expect(r.status).toBe(413);
    const body = (await r.json()) as { error: string; issues: { code: string }[] };
    expect(body.error).toBe('validation');
    expect(body.issues[0]?.code).toBe('too_big');
    if (how !== 'fetch') expect(Number(r.headers.get('content-length'))).toBeGreaterThan(0);
    expect(seen).toEqual([]);
  });

  it.each(cases)('%s (%s): a body a middleware read and kept is a 500 that onError hears, never an empty body', async (_n, how, e) => {
    const seen: unknown[] = [];
    const r = await send(e, how, (err) => seen.push(err), '{}', true);
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ error: 'internal', message: 'internal error' });
    expect(seen).toHaveLength(1);
  });

  it.each(cases)('%s (%s): an onError that throws still leaves a whole 500 answer', async (_n, how, e) => {
    const r = await send(
      e,
      how,
      () => {
        throw new Error('the logger is down');
      },
      '{}',
      true,
    );
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ error: 'internal', message: 'internal error' });
  });
});

describe('next read as the body: every node handler is an Express handler as it is', () => {
  it('app.post(path, express.json(), revoke.node) accepts a report (it was a 400: Express passed next as the body)', async () => {
    const revoke = endpoints[1] as Endpoint;
    const app = express();
    app.post(
      revoke.path,
      express.json(),
      revoke.node(() => undefined),
    );
    const srv = createServer(app);
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}${revoke.path}`;
    const r = await fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ credentials: [session] }) });
    expect(r.status).toBe(202);
    await expect(w.auth.authenticate(session)).rejects.toThrow();
  });
});

describe('one refusal text per reason: the guards and /mcp say the same (MCP may append its hint)', () => {
  const reasons: AuthenticationReason[] = [
    'missing',
    'malformed',
    'signature',
    'expired',
    'revoked',
    'unknown',
    'type',
    'issuer',
    'audience',
    'not_yet_valid',
    'algorithm',
    'key',
  ];
  it.each(reasons)('%s', (reason) => {
    const guard = httpError(new AuthenticationError(reason)).body.message;
    const mcp = refusalText(reason, 'HINT');
    expect(mcp === guard || mcp === `${guard}: HINT`).toBe(true);
  });
});
