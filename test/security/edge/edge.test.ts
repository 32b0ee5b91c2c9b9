/**
 * One table, every endpoint the library returns that reads a body (endpoints.ts: `/mcp`, credential
 * revocation, GitHub secret scanning, OAuth registration and token), through every way it is mounted
 * (node:http and Express 5 as it is, fetch): the same hostile bodies (over the cap, not JSON, not
 * its content type, trickled past the deadline), the same body a framework parsed or a middleware
 * read and kept, the same `onError` that throws or rejects. The edges once had a copy each and
 * behaved differently (an already-read body was empty for `/mcp` and a 500 for the leak endpoints;
 * only the OAuth forms had a deadline; Express's `next` was read as the revoke body); one table
 * keeps one behaviour.
 */
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../../src/stores';
import { world, type World } from '../../leaks/servers';
import { closeAll, endpoints, mount, type Endpoint, type Mount, type OnError } from './endpoints';

let w: World;
let session = '';

beforeAll(async () => {
  w = await world(new MemoryTokenStore());
  session = await w.auth.issueSession('alice');
});
afterAll(closeAll);

const table = endpoints(() => session);
const cases = table.flatMap((e) => e.mounts.map((how) => [e.name, how, e] as const));
const nodeCases = cases.filter(([, how]) => how !== 'fetch');

/** A middleware that reads the body and keeps it to itself (no `req.body`). */
const drain = (req: IncomingMessage, _res: unknown, next: () => void): void => {
  req.on('data', () => undefined).once('end', () => next());
};

interface Sent {
  headers?: Record<string, string>;
  body?: string;
  /** `parsed`: the application's body parser runs first; `consumed`: a middleware reads the body and keeps it. */
  before?: 'parsed' | 'consumed';
}

async function send(e: Endpoint, how: Mount, onError: OnError, s: Sent = {}): Promise<Response> {
  const built = await e.make(w.auth, onError);
  const init = { method: 'POST', headers: s.headers ?? e.headers(), body: s.body ?? e.body };
  if (how === 'fetch') {
    const req = new Request(`http://127.0.0.1:1${e.path}`, init);
    if (s.before === 'consumed') await req.text();
    return (built.fetch as (r: Request) => Promise<Response>)(req);
  }
  const before = s.before === 'parsed' ? e.parser() : s.before === 'consumed' ? (drain as never) : undefined;
  return fetch(`${await mount(built, how, e.path, before)}${e.path}`, init);
}

const quiet: OnError = () => undefined;
const throwing: OnError = () => {
  throw new Error('the logger is down');
};
const rejecting: OnError = () => Promise.reject(new Error('the logger is down, later'));

describe('hostile bodies, every endpoint, every mount', () => {
  it.each(cases)('%s (%s): oversized body: 413 before it is read whole, with Content-Length on node', async (_n, how, e) => {
    const seen: unknown[] = [];
    const r = await send(e, how, (err) => seen.push(err), { body: ' '.repeat(e.max + 1) });
    expect(r.status).toBe(413);
    expect(e.tooLarge(await r.json())).toBe(true);
    if (how !== 'fetch') expect(Number(r.headers.get('content-length'))).toBeGreaterThan(0);
    expect(seen).toEqual([]);
  });

  it.each(cases)(
    '%s (%s): invalid JSON (for a form: none of its fields) is refused as the client’s fault, never a 500',
    async (_n, how, e) => {
      const r = await send(e, how, quiet, { body: '{"credentials": [' });
      expect(r.status).toBe(e.status.invalid);
    },
  );

  it.each(cases)('%s (%s): wrong content type (text/plain) is refused, never read as JSON', async (_n, how, e) => {
    const r = await send(e, how, quiet, { headers: { ...e.headers(), 'content-type': 'text/plain' } });
    expect(r.status).toBe(e.status.wrongType);
  });

  it('slowloris: a body that stops halfway is cut at the deadline on every endpoint and mount, never waited on', async () => {
    const cut = nodeCases.map(async ([, how, e]) => {
      const base = new URL(await mount(await e.make(w.auth, quiet), how as Exclude<Mount, 'fetch'>, e.path));
      const socket = connect(Number(base.port), '127.0.0.1');
      socket.on('error', () => undefined);
      const head = Object.entries(e.headers()).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`POST ${e.path} HTTP/1.1\r\nHost: ${base.host}\r\n${head.join('')}Content-Length: 100\r\n\r\n{"a":`);
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      await new Promise((r) => socket.once('close', r));
      return answer;
    });
    const fetched = cases
      .filter(([, how]) => how === 'fetch')
      .map(async ([, , e]) => {
        const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{"a":')) });
        const req = new Request(`http://127.0.0.1:1${e.path}`, {
          method: 'POST',
          headers: e.headers(),
          body,
          duplex: 'half',
        } as RequestInit);
        return (await e.make(w.auth, quiet)).fetch?.(req);
      });
    // node: the server closes the connection (no answer claims a whole body); fetch: a 500, never a short body.
    for (const answer of await Promise.all(cut)) expect(answer).not.toMatch(/^HTTP\/1\.1 2/);
    for (const r of await Promise.all(fetched)) expect(r?.status).toBe(500);
  });
});

describe('a body a framework already read, every endpoint, every mount', () => {
  it.each(cases)('%s (%s): a body the framework parsed onto req.body is the body', async (_n, how, e) => {
    const r = await send(e, how, quiet, how === 'fetch' ? {} : { before: 'parsed' });
    expect(r.status).toBe(e.status.ok);
  });

  it.each(cases)('%s (%s): a body a middleware read and kept is a 500 that onError hears, never an empty body', async (_n, how, e) => {
    const seen: unknown[] = [];
    const r = await send(e, how, (err) => seen.push(err), { before: 'consumed' });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual(e.internal);
    expect(seen).toHaveLength(1);
  });
});

describe('an onError that fails, every endpoint, every mount: never a crash, never an accept', () => {
  it.each(cases)('%s (%s): onError throws: a whole 500 answer', async (_n, how, e) => {
    const r = await send(e, how, throwing, { before: 'consumed' });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual(e.internal);
  });

  it.each(cases)('%s (%s): onError rejects: a whole 500 answer and no unhandled rejection', async (_n, how, e) => {
    const r = await send(e, how, rejecting, { before: 'consumed' });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual(e.internal);
  });
});

describe('next read as the body: every node handler is an Express handler as it is', () => {
  it('app.post(path, express.json(), revoke.node) accepts a report (it was a 400: Express passed next as the body)', async () => {
    const revoke = table.find((e) => e.name === 'credential revocation') as Endpoint;
    const own = await w.auth.issueSession('bob');
    const built = await revoke.make(w.auth, quiet);
    const base = await mount(built, 'express', revoke.path, express.json());
    const r = await fetch(`${base}${revoke.path}`, {
      method: 'POST',
      headers: revoke.headers(),
      body: JSON.stringify({ credentials: [own] }),
    });
    expect(r.status).toBe(202);
    await expect(w.auth.authenticate(own)).rejects.toThrow();
  });
});
