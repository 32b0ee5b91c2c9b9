/**
 * Fuzz: every handler `svc-auth/mcp` returns (mcpHandlers: the node and
 * fetch forms of the `/mcp` endpoint and the metadata endpoint) over
 * method, path, headers (Host, Origin, Authorization, Content-Type, Accept,
 * mcp-session-id, mcp-protocol-version, ...) and body. Rule: no handler ever
 * rejects or throws; every request gets an HTTP answer with a status from a
 * short list (no 5xx: nothing here is a server fault), and no answer carries
 * a stack trace. The node handlers run behind a real node:http server with
 * the lenient parser (what reaches a handler is what a lenient server lets
 * through), reached over raw sockets so that Host and the request line are
 * the fuzzer's own bytes.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { guardTool, mcpHandlers, type McpHandlers, mcpPrincipal, type McpHandlerOptions } from '../../src/mcp';
import type { Auth } from '../../src/service';
import { testAuth } from '../support/auth';
import { hostileString, PARAMS, TIMEOUT } from './harness';

/** Statuses a request may get; a 5xx would be a fault of ours (the store is up, the tools do not fail). */
const SANE = new Set([200, 202, 204, 400, 401, 403, 404, 405, 406, 413, 415, 431]);
const STACK = /\n\s+at .+\(|\bat (?:async )?[\w.]+ \(/;

function userServer(auth: Auth): McpServer {
  const server = new McpServer({ name: 'fuzz', version: '1' });
  server.registerTool('whoami', { inputSchema: {}, outputSchema: { user: z.string() } }, (_a, extra) => {
    const user = mcpPrincipal(extra.authInfo).userId;
    return { content: [{ type: 'text', text: user }], structuredContent: { user } };
  });
  server.registerTool(
    'note_put',
    { inputSchema: { org: z.string(), repo: z.string(), text: z.string() }, outputSchema: { saved: z.boolean() } },
    guardTool(auth, { permission: 'repo:write', resource: (a: { org: string; repo: string }) => `${a.org}/${a.repo}` }, () => ({
      content: [{ type: 'text', text: 'saved' }],
      structuredContent: { saved: true },
    })),
  );
  return server;
}

const HOSTS = [
  '127.0.0.1:8080',
  'localhost',
  '[::1]:3000',
  'evil.example',
  '127.0.0.1:99999',
  '[::::::]',
  '1.2.3.4.5',
  '256.1.1.1',
  'a"b',
  'a b',
  '',
  'x:1:2',
  '[::1',
  'é.example',
  'a@b',
  'a/b',
  'a\\b',
  '0x7f.1',
  'xn--',
  `${'a'.repeat(300)}.example`,
];
const PATHS = [
  '/mcp',
  '/',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource//evil.example',
  '//evil.example/mcp',
  'http://evil.example/mcp',
  '*',
  '/mcp?x=1',
  '/%2e%2e/mcp',
  '/mcp/../x',
  `/${'a'.repeat(5000)}`,
  '/"quoted"',
];

/** One request as the fuzzer makes it. */
interface Case {
  method: string;
  host: string | undefined;
  path: string;
  headers: [string, string][];
  body: string;
  handlers: number;
}

function caseArb(tokens: readonly string[]): fc.Arbitrary<Case> {
  const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
  const rpc = fc
    .record({
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2),
      id: fc.oneof(fc.nat(), fc.string({ maxLength: 8 }), fc.constant(null)),
      method: fc.oneof(
        fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping', 'notifications/initialized', 'resources/list'),
        hostileString,
      ),
      params: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constant({}),
        fc.constant({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'f', version: '1' } }),
        fc.record({
          name: fc.constantFrom('whoami', 'note_put', 'nope', '__proto__'),
          arguments: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ org: hostileString, repo: hostileString, text: hostileString })),
        }),
      ),
    })
    .map((m) => JSON.stringify(m));
  const body = fc.oneof(
    { arbitrary: rpc, weight: 6 },
    { arbitrary: fc.array(rpc, { maxLength: 4 }).map((a) => `[${a.join(',')}]`), weight: 1 },
    { arbitrary: fc.constant(''), weight: 1 },
    { arbitrary: hostileString, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 50_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`), weight: 1 },
  );
  // Mostly plausible requests (so that many reach the SDK transport with a valid token), the rest hostile.
  const likely = <T>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<T>): fc.Arbitrary<T> =>
    fc.oneof({ arbitrary: usual, weight: 3 }, { arbitrary: other, weight: 1 });
  /** A header present in `percent` of the cases. */
  const named = (name: string, values: fc.Arbitrary<string>, percent: number): fc.Arbitrary<[string, string] | undefined> =>
    fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 100 - percent },
      { arbitrary: values.map((v): [string, string] => [name, v]), weight: percent },
    );
  const headerNames = fc.oneof(
    fc.constantFrom('origin', 'authorization', 'content-type', 'accept', 'mcp-session-id', 'host', 'content-length', 'transfer-encoding'),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  );
  return fc
    .record({
      method: likely(fc.constant('POST'), fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PATCH')),
      host: opt(
        likely(fc.constantFrom('127.0.0.1:8080', 'localhost:8080', '[::1]:8080'), fc.oneof(fc.constantFrom(...HOSTS), hostileString)),
      ),
      path: likely(
        fc.constant('/mcp'),
        fc.oneof(
          fc.constantFrom(...PATHS),
          hostileString.map((s) => `/${s}`),
          hostileString,
        ),
      ),
      standard: fc.tuple(
        named(
          'origin',
          fc.oneof(fc.constantFrom('http://127.0.0.1:8080', 'null', '', 'http://evil.example', 'https://app.example'), hostileString),
          30,
        ),
        named(
          'authorization',
          likely(
            fc.constantFrom(...tokens.map((t) => `Bearer ${t}`)),
            fc.oneof(fc.constantFrom('Basic abc', 'Bearer', `Bearer ${'a'.repeat(9000)}`), hostileString),
          ),
          85,
        ),
        named(
          'content-type',
          likely(
            fc.constant('application/json'),
            fc.oneof(fc.constantFrom('text/plain', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x'), hostileString),
          ),
          85,
        ),
        named(
          'accept',
          likely(
            fc.constant('application/json, text/event-stream'),
            fc.oneof(fc.constantFrom('application/json', 'text/event-stream', '*/*'), hostileString),
          ),
          85,
        ),
        named('mcp-session-id', hostileString, 20),
        named('mcp-protocol-version', fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01'), hostileString), 20),
        named('last-event-id', hostileString, 10),
      ),
      extra: fc.array(fc.tuple(headerNames, hostileString), { maxLength: 2 }),
      body,
      handlers: fc.nat({ max: 2 }),
    })
    .map(({ standard, extra, ...rest }) => ({
      ...rest,
      headers: [...standard.filter((h): h is [string, string] => h !== undefined), ...extra],
    }));
}

/** Three handler configurations: from the request, a fixed public resource, an allow-list. */
function configs(auth: Auth): McpHandlerOptions[] {
  const server = (): McpServer => userServer(auth);
  return [
    { auth, server },
    { auth, server, resource: 'https://svc.example/mcp', authorizationServers: ['https://login.example'] },
    { auth, server, allowedOrigins: ['https://app.example'], resourceName: 'fuzz' },
  ];
}

let auth: Auth;
let tokens: string[] = [];
beforeAll(async () => {
  const s = await testAuth({ now: () => new Date() });
  auth = s.auth;
  const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
  const writer = (await alice.token.create({ name: 'writer', scopes: [{ resource: 'acme/web', permissions: ['repo:write'] }] })).token;
  const reader = (await alice.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
  const revoked = (await alice.token.create({ name: 'gone' })).token;
  await alice.token.revoke('gone');
  tokens = [writer, reader, revoked, await auth.issueSession('bob')];
});

describe('fuzz: mcpHandlers (fetch)', () => {
  it(
    'mcp and metadata always answer, with a sane status and no stack, for any method, URL, headers and body',
    async () => {
      const handlers = configs(auth).map((o) => mcpHandlers(o));
      let served = 0;
      await fc.assert(
        fc.asyncProperty(caseArb(tokens), async (c) => {
          const build = (headers: [string, string][]): Request | undefined => {
            try {
              const noBody = c.method === 'GET' || c.method === 'HEAD';
              const url = `http://${c.host ?? '127.0.0.1:8080'}${c.path}`;
              return new Request(url, { method: c.method, headers, ...(noBody ? {} : { body: c.body }) });
            } catch {
              return undefined;
            }
          };
          // Header values a runtime refuses (not a byte string, CR, LF, NUL) never reach a handler: make them bytes it takes.
          const req = build(c.headers) ?? build(c.headers.map(([k, v]) => [k, v.replace(/[^\x20-\x7e\x80-\xff\t]/g, '?')]));
          if (req === undefined) return; // the runtime refused this URL or method: it never reaches a handler
          served++;
          const h = handlers[c.handlers] as McpHandlers;
          const wellKnown = req.url.includes('/.well-known/');
          const res = wellKnown ? h.metadata.fetch(req) : await h.mcp.fetch(req);
          expect(res).toBeInstanceOf(Response);
          expect(SANE.has(res.status), `status ${res.status}`).toBe(true);
          const text = await res.text();
          expect(text).not.toMatch(STACK);
        }),
        PARAMS,
      );
      expect(served).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});

/** Bytes of one HTTP/1.1 request: CR and LF are taken out of the fuzzer's strings, so it stays one request. */
function rawRequest(c: Case): string {
  const clean = (s: string): string => s.replace(/[\r\n]/g, '');
  const lines = [`${c.method} ${clean(c.path).replace(/ /g, '%20') || '/'} HTTP/1.1`];
  if (c.host !== undefined) lines.push(`Host: ${clean(c.host)}`);
  // The framing is ours: a fuzzed length or chunked encoding would leave the server waiting for bytes that never come.
  for (const [k, v] of c.headers) if (k !== 'content-length' && k !== 'transfer-encoding') lines.push(`${k}: ${clean(v)}`);
  lines.push(`Content-Length: ${Buffer.byteLength(c.body)}`, 'Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${c.body}`;
}

/** Send one request and read until the server closes (`Connection: close`). No half-close: node drops a pending answer on it. */
function send(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.setEncoding('latin1');
    s.on('data', (d: string) => (got += d));
    // A hang is a failure too: no answer within 10 s reads as an empty reply.
    const t = setTimeout(() => s.destroy(), 10_000);
    s.on('close', () => {
      clearTimeout(t);
      resolve(got);
    });
    s.on('error', () => undefined);
    s.write(bytes);
  });
}

describe('fuzz: mcpHandlers (node) behind node:http', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done())))));

  it(
    'mcp (with and without a parsed body) and metadata always answer; no handler promise ever rejects',
    async () => {
      const outcomes: Promise<unknown>[] = [];
      const ports: number[] = [];
      for (const [i, o] of configs(auth).entries()) {
        const h = mcpHandlers(o);
        // The lenient parser lets through what a permissive proxy or framework would.
        const srv = createServer({ insecureHTTPParser: true }, (req, res) => {
          if ((req.url ?? '').includes('/.well-known/')) {
            outcomes.push(
              new Promise((done) => {
                h.metadata.node(req, res);
                done(null);
              }).catch((e: unknown) => e),
            );
            return;
          }
          // Express-style: the third configuration gets a body a parser already read, on req.body.
          if (i === 2) (req as { body?: unknown }).body = { jsonrpc: '2.0', id: 1, method: req.headers['x-method'] ?? 'ping' };
          outcomes.push(
            h.mcp.node(req, res).then(
              () => null,
              (e: unknown) => e ?? 'rejected',
            ),
          );
        });
        await new Promise<void>((done) => srv.listen(0, '127.0.0.1', done));
        servers.push(srv);
        ports.push((srv.address() as AddressInfo).port);
      }
      await fc.assert(
        fc.asyncProperty(caseArb(tokens), async (c) => {
          const reply = await send(ports[c.handlers] as number, rawRequest(c));
          const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(reply)?.[1]);
          expect(SANE.has(status), `status ${status} for ${JSON.stringify(reply.slice(0, 200))}`).toBe(true);
          expect(reply).not.toMatch(STACK);
          const settled = await Promise.all(outcomes.splice(0));
          expect(settled.filter((x) => x !== null)).toEqual([]);
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );
});
