import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, NotFoundError, UnavailableError, ValidationError } from '../../src/errors';
import { errorResponse, sendError, sendJson } from '../../src/http';

const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl';

let server: Server | undefined;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('H2: errorResponse (fetch)', () => {
  it('H2: builds a JSON Response with the status, challenge and no-store', async () => {
    const res = errorResponse(new AuthenticationError('revoked'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ error: 'authentication', reason: 'revoked' });
  });

  it('H2 attack: an error that is not ours never shows its message or stack', async () => {
    const res = errorResponse(new Error(`leaked ${TOKEN}`));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('leaked');
    expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'internal error' });
  });
});

describe('H2: sendJson and sendError (node)', () => {
  it('H2: sendError writes status, headers and JSON body', async () => {
    const url = await serve((_req, res) => sendError(res, new UnavailableError()));
    const res = await fetch(url);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ error: 'unavailable' });
  });

  it('H2 attack: sendError of a foreign error with a token answers 500 without it', async () => {
    const url = await serve((_req, res) => sendError(res, new TypeError(`cannot read ${TOKEN}`)));
    const res = await fetch(url);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain(TOKEN);
  });

  it('H2: sendError drops headers set before the error but keeps CORS ones', async () => {
    const url = await serve((_req, res) => {
      res.setHeader('set-cookie', 'session=abc');
      res.setHeader('etag', '"v1"');
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('vary', 'origin');
      sendError(res, new NotFoundError());
    });
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('vary')).toBe('origin');
  });

  it('H2: sendError after the headers were sent closes the connection instead of throwing', async () => {
    let threw: unknown = 'not run';
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      threw = thrown(() => sendError(res, new NotFoundError()));
    });
    // Depending on buffering the client sees no answer at all or a cut-off body; never a complete one.
    const outcome = await fetch(url).then(
      (res) =>
        res.text().then(
          () => 'complete',
          () => 'broken',
        ),
      () => 'broken',
    );
    expect(outcome).toBe('broken');
    expect(threw).toBeUndefined();
  });

  it('H2: sendError on an ended response does nothing and does not throw', async () => {
    let threw: unknown = 'not run';
    const url = await serve((_req, res) => {
      res.end('done');
      threw = thrown(() => sendError(res, new NotFoundError()));
    });
    const res = await fetch(url);
    expect(await res.text()).toBe('done');
    expect(threw).toBeUndefined();
  });

  it('sendJson writes JSON with content-length and extra headers', async () => {
    const url = await serve((_req, res) => sendJson(res, 201, { ok: 'é' }, { 'x-extra': '1' }));
    const res = await fetch(url);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-extra')).toBe('1');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"ok":"é"}')));
    expect(await res.json()).toEqual({ ok: 'é' });
  });

  it('sendJson refuses a bad status, a non-JSON body and a started response with ValidationError', async () => {
    const errors: unknown[] = [];
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const url = await serve((_req, res) => {
      errors.push(thrown(() => sendJson(res, 99, {})));
      errors.push(thrown(() => sendJson(res, 600, {})));
      errors.push(thrown(() => sendJson(res, 200.5, {})));
      errors.push(thrown(() => sendJson(res, 200, 10n)));
      errors.push(thrown(() => sendJson(res, 200, circular)));
      errors.push(thrown(() => sendJson(res, 200, undefined)));
      sendJson(res, 200, { ok: true });
      errors.push(thrown(() => sendJson(res, 200, {})));
    });
    const res = await fetch(url);
    expect(await res.json()).toEqual({ ok: true });
    expect(errors).toHaveLength(7);
    for (const err of errors) expect(err).toBeInstanceOf(ValidationError);
    expect(errors.map((e) => (e as ValidationError).issues[0]?.pathText)).toEqual([
      'status',
      'status',
      'status',
      'body',
      'body',
      'body',
      'res',
    ]);
  });
});

describe('errorResponse with a decision answer', () => {
  it('H2: errorResponse(decisionError(d)) answers 403 with insufficient_scope, not 500', async () => {
    const { decisionError } = await import('../../src/http');
    const res = errorResponse(decisionError({ allowed: false, reason: 'thing' }));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(((await res.json()) as { reason?: string }).reason).toBe('thing');
  });
});
