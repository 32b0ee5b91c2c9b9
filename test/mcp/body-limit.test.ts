/**
 * Issue 18 follow-up: `/mcp` caps the request body (`maxBodyBytes`, default 1 MiB), answered 413 in
 * the H2 JSON shape before the MCP SDK reads the body, on node:http and on fetch: a client cannot
 * make the server hold a body of any size in memory. A declared `Content-Length` over the cap is
 * refused before a byte is read; a streamed body is read only up to the cap.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHandlers, type McpHandlerOptions } from '../../src/mcp';
import { testAuth, type TestAuth } from '../support/auth';
import { caught } from '../support/errors';

const MiB = 1024 * 1024;
let s: TestAuth;
let session = '';
let built = 0;

beforeAll(async () => {
  s = await testAuth({ now: () => new Date() });
  session = await s.auth.issueSession('alice');
});

const options = (extra: Partial<McpHandlerOptions> = {}): McpHandlerOptions => ({
  auth: s.auth,
  server: () => {
    built++;
    return new McpServer({ name: 't', version: '1' });
  },
  ...extra,
});

const headers = () => ({
  authorization: `Bearer ${session}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/** A JSON-RPC ping padded with spaces to exactly `bytes` bytes. */
function ping(bytes: number): string {
  const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  return text + ' '.repeat(bytes - text.length);
}

async function expectTooLarge(r: Response, max: number): Promise<void> {
  expect(r.status).toBe(413);
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = (await r.json()) as { error: string; issues: { code: string; pathText: string; message: string }[] };
  expect(body.error).toBe('validation');
  expect(body.issues[0]).toMatchObject({ code: 'too_big', pathText: 'body', message: `is larger than ${max} bytes` });
}

describe('memory exhaustion attack: an oversized /mcp body is refused 413 before the SDK reads it (fetch)', () => {
  it('a declared Content-Length over the default 1 MiB: 413, no MCP server is built', async () => {
    const h = mcpHandlers(options());
    built = 0;
    const r = await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: headers(), body: ping(MiB + 1) }));
    await expectTooLarge(r, MiB);
    expect(built).toBe(0);
  });

  it('an endless streamed body (no Content-Length): 413 after reading at most the cap, the rest cancelled', async () => {
    const h = mcpHandlers(options({ maxBodyBytes: 64 * 1024 }));
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const req = new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: headers(), body: endless, duplex: 'half' } as RequestInit);
    await expectTooLarge(await h.mcp.fetch(req), 64 * 1024);
    expect(pulled).toBeLessThan(64 * 1024 + 4 * 16 * 1024);
    expect(cancelled).toBe(true);
  });

  it('a body of exactly maxBodyBytes is served; one byte more is refused', async () => {
    const h = mcpHandlers(options({ maxBodyBytes: 4096 }));
    const at = await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: headers(), body: ping(4096) }));
    expect(at.status).not.toBe(413);
    const over = await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: headers(), body: ping(4097) }));
    await expectTooLarge(over, 4096);
  });

  it('a credential comes first: an oversized body without one is a 401, its body never read', async () => {
    const h = mcpHandlers(options());
    const { authorization: _, ...anonymous } = headers();
    const r = await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: anonymous, body: ping(2 * MiB) }));
    expect(r.status).toBe(401);
  });
});

describe('memory exhaustion attack: an oversized /mcp body is refused 413 before the SDK reads it (node:http)', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    const h = mcpHandlers(options());
    server = createServer((req, res) => void h.mcp.node(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  /** Send the head (and `chunks`, each sent once the server has not yet answered); resolve with what came back. */
  function raw(head: string[], chunks: Buffer[] = []): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let got = '';
      const done = (): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      };
      const timer = setTimeout(done, 10_000);
      socket.on('data', (d) => {
        got += d.toString('latin1');
      });
      socket.on('close', done);
      socket.on('error', done);
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      const next = (i: number): void => {
        if (i >= chunks.length || got.length > 0 || socket.destroyed) return;
        socket.write(chunks[i] as Buffer, () => setImmediate(() => next(i + 1)));
      };
      next(0);
    });
  }

  const head = (extra: string[]): string[] => [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${session}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    ...extra,
  ];

  it('a declared Content-Length of 2 MiB with no body sent: 413 at once (nothing read), and the connection closes', async () => {
    built = 0;
    const text = await raw(head([`Content-Length: ${2 * MiB}`]));
    expect(text.startsWith('HTTP/1.1 413')).toBe(true);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"too_big"');
    expect(built).toBe(0);
  });

  it('a chunked body growing past 1 MiB: 413 once the cap is passed, without waiting for its end', async () => {
    built = 0;
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    // 64 MiB announced in pieces; the server must answer long before the last one.
    const text = await raw(
      head(['Transfer-Encoding: chunked']),
      Array.from({ length: 1024 }, () => chunk),
    );
    expect(text.startsWith('HTTP/1.1 413')).toBe(true);
    expect(text).toContain('"error":"validation"');
    expect(built).toBe(0);
  });
});

describe('maxBodyBytes is checked when the handlers are built', () => {
  it.each([0, -1, 1.5, '1024', Number.NaN, 2 ** 40])('maxBodyBytes %s -> ValidationError', (value) => {
    for (const make of [mcpHandlers]) {
      const err = caught(() => make(options({ maxBodyBytes: value as number })));
      expect(err).toMatchObject({ code: 'validation' });
    }
  });
});
