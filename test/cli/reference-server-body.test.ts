/**
 * Hostile bodies at the reference server's write route (`PUT .../things/<name>`), read by the one
 * bounded body reader of the library's endpoints: an oversized body (declared or streamed), a body
 * that trickles past the deadline, a body that is not JSON, and a body a framework already read.
 * None of them writes a thing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, type ReferenceServer, type Thing, type ThingStore } from '../../src/app/server';
import { systemTime, testAuth } from '../support/auth';

/** A things store that counts its writes. */
class CountingThings implements ThingStore {
  writes = 0;
  head(): Promise<string> {
    return Promise.resolve('0'.repeat(40));
  }
  get(): Promise<Thing | undefined> {
    return Promise.resolve(undefined);
  }
  put(_repo: string, name: string, content: unknown, committer: string): Promise<Thing> {
    this.writes += 1;
    return Promise.resolve({ name, content, committer, commit: String(this.writes).padStart(40, '0') });
  }
}

const PATH = '/api/repos/acme/web/things/Doc/a';
const MAX = 1024;

describe('hostile bodies at the reference server', { timeout: 60_000 }, () => {
  const things = new CountingThings();
  let ref: ReferenceServer;
  let url = '';
  let port = 0;
  let session = '';

  beforeAll(async () => {
    const { auth } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, now: systemTime });
    session = await auth.issueSession('alice');
    ref = createReferenceServer({ auth, things, body: { maxBytes: MAX, deadlineMs: 200 } });
    url = await ref.listen({ port: 0 });
    port = Number(new URL(url).port);
  });
  afterAll(() => ref?.close());

  const put = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${url}${PATH}`, {
      method: 'PUT',
      body,
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', ...headers },
      duplex: 'half',
    } as RequestInit);

  it('a well-formed write is written (the baseline the attacks below are measured against)', async () => {
    const before = things.writes;
    const r = await put('{"content":{"text":"hi"}}');
    expect(r.status).toBe(200);
    expect(things.writes).toBe(before + 1);
  });

  it('oversized body, declared: 413 before a byte is read, the connection closed, nothing written', async () => {
    const before = things.writes;
    const r = await put(JSON.stringify({ content: 'x'.repeat(MAX) }));
    expect(r.status).toBe(413);
    expect(r.headers.get('connection')).toBe('close');
    expect(await r.json()).toEqual({ error: 'too_large', message: `the body is larger than ${MAX} bytes` });
    expect(things.writes).toBe(before);
  });

  it('oversized body, streamed without Content-Length: 413 once it passes the cap, nothing written', async () => {
    const before = things.writes;
    const chunk = new TextEncoder().encode('x'.repeat(512));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) c.enqueue(new TextEncoder().encode('{"content":"'));
        if (sent < 8) c.enqueue(chunk);
        else c.close();
        sent += 1;
      },
    });
    const r = await put(stream).catch((err: unknown) => err);
    // The server answers 413 and closes; a client still sending may see the close instead.
    if (r instanceof Response) expect(r.status).toBe(413);
    expect(things.writes).toBe(before);
  });

  it('slow body past the deadline (slowloris): the request is cut off, never answered 200, nothing written', async () => {
    const before = things.writes;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (d: string) => (received += d));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(
      `PUT ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${session}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"content":`,
    );
    await closed;
    expect(received).not.toMatch(/^HTTP\/1\.1 200/);
    expect(things.writes).toBe(before);
  });

  it('invalid JSON: 400 validation, nothing written', async () => {
    const before = things.writes;
    const r = await put('{"content": nope');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'validation' });
    expect(things.writes).toBe(before);
  });
});

describe('a body already read, with the server mounted behind another handler', { timeout: 60_000 }, () => {
  const things = new CountingThings();
  let ref: ReferenceServer;
  let session = '';
  beforeAll(async () => {
    const { auth } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, now: systemTime });
    session = await auth.issueSession('alice');
    ref = createReferenceServer({ auth, things });
  });

  async function through(mount: (handle: (req: IncomingMessage, res: ServerResponse) => void) => Parameters<typeof createServer>[1]) {
    const server = createServer(mount(ref.handle));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      return await fetch(`http://127.0.0.1:${port}${PATH}`, {
        method: 'PUT',
        body: '{"content":"parsed"}',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it('after express.json(): the parsed req.body is the body, written once', async () => {
    const before = things.writes;
    const r = await through((handle) => {
      const app = express();
      app.use(express.json());
      app.use((req, res) => handle(req, res));
      return app;
    });
    expect(r.status).toBe(200);
    expect(things.writes).toBe(before + 1);
  });

  it('consumed body (a handler before it read the stream and kept it): 500, never an empty body, nothing written', async () => {
    const before = things.writes;
    const r = await through((handle) => (req, res) => {
      req.resume();
      req.once('end', () => handle(req, res));
    });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ error: 'internal', message: 'internal error' });
    expect(things.writes).toBe(before);
  });
});
