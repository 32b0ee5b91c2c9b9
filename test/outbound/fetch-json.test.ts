/**
 * The one outbound JSON fetch (trusted issuers, GitHub's keys, the CLI), against a
 * real node:http server on loopback: redirects refused one way (even by a `fetch`
 * that follows them), a size cap declared or streamed, one deadline that covers
 * the body, the service-URL rule before any byte is sent, and errors that name
 * what was fetched and never the answer's text.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors';
import { fetchJson } from '../../src/outbound';

const SECRET = 'svc_pat_quoted_in_an_answer';
let server: Server;
let base: string;

const routes: Record<string, (res: ServerResponse) => void> = {
  '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}'),
  '/redirect': (res) => res.writeHead(302, { location: '/ok' }).end(),
  '/big-declared': (res) => res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)),
  '/big-streamed': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`"${'x'.repeat(3000)}`);
    res.end(`${'x'.repeat(3000)}"`);
  },
  '/slow-body': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"keys":');
    // Never finished: the deadline must cover the body, not only the headers.
  },
  '/error': (res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`boom ${SECRET}`),
  '/oauth-error': (res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}'),
  '/not-json': (res) => res.writeHead(200).end(`<html>${SECRET}</html>`),
};

beforeAll(async () => {
  server = createServer((req, res) => (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function refusal(promise: Promise<unknown>): Promise<UnavailableError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnavailableError);
  const message = (err as UnavailableError).message;
  expect(message).toContain('the test document');
  expect(message).not.toContain(SECRET);
  return err as UnavailableError;
}

describe('fetchJson', () => {
  it('reads a 200 JSON answer', async () => {
    expect(await fetchJson(`${base}/ok`, { what: 'the test document' })).toEqual({ status: 200, body: { keys: [] } });
  });

  it('open redirect: a 3xx is refused, not followed', async () => {
    const err = await refusal(fetchJson(`${base}/redirect`, { what: 'the test document' }));
    expect(err.message).toContain('redirect');
  });

  it('open redirect: a `fetch` that follows redirects anyway is refused the same way', async () => {
    const following = (url: string, init: RequestInit) => fetch(url, { ...init, redirect: 'follow' });
    const err = await refusal(fetchJson(`${base}/redirect`, { what: 'the test document', fetch: following }));
    expect(err.message).toContain('redirect');
  });

  it('memory exhaustion: a body over the cap is refused, declared or streamed', async () => {
    for (const path of ['/big-declared', '/big-streamed']) {
      const err = await refusal(fetchJson(`${base}${path}`, { what: 'the test document', maxBytes: 4096 }));
      expect(err.message).toContain('more than 4096 bytes');
    }
  });

  it('slowloris: a body that never ends is cut at the deadline', async () => {
    const started = Date.now();
    await refusal(fetchJson(`${base}/slow-body`, { what: 'the test document', timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("an error answer's text is never in the error; anyStatus returns it parsed instead", async () => {
    const err = await refusal(fetchJson(`${base}/error`, { what: 'the test document' }));
    expect(err.message).toContain('500');
    await refusal(fetchJson(`${base}/not-json`, { what: 'the test document' }));
    expect(await fetchJson(`${base}/oauth-error`, { what: 'the test document', anyStatus: true })).toEqual({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect((await fetchJson(`${base}/not-json`, { what: 'the test document', anyStatus: true })).body).toBeUndefined();
  });

  it('SSRF and leaks: a URL outside the service-URL rule is refused before any request', async () => {
    let sent = 0;
    const counting = (url: string, init: RequestInit) => {
      sent++;
      return fetch(url, init);
    };
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://app.localhost/keys',
      `http://user:${SECRET}@127.0.0.1:1/`,
      `${base}/ok#frag`,
      'file:///etc/passwd',
    ]) {
      await refusal(fetchJson(url, { what: 'the test document', fetch: counting }));
    }
    expect(sent).toBe(0);
  });

  it('a caller signal ends the request, and the deadline still holds with it', async () => {
    await refusal(fetchJson(`${base}/slow-body`, { what: 'the test document', signal: AbortSignal.timeout(200), timeoutMs: 60_000 }));
    await refusal(fetchJson(`${base}/slow-body`, { what: 'the test document', signal: new AbortController().signal, timeoutMs: 200 }));
  });
});
