/**
 * Reason `policy` (G2) at the HTTP edge: an org's refusal is a 403 whose body
 * and `WWW-Authenticate` challenge carry the org's message, from
 * `decisionError`, from a `ForbiddenError` with reason `policy`, through real
 * node:http and through the Hono adapter.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, createGrant, decisionError, errorAnswer, ForbiddenError, sendError, type Decision } from 'svc-auth';
import { onError, svcAuth, type PrincipalEnv } from 'svc-auth/hono';
import { testAuth } from '../support/auth';
import { closeServer, listening } from '../support/adapters';

const MESSAGE =
  "The organization 'acme' allows tokens that live at most 90 days; this one lives 365 days. Create a new token with --expires 90d or less.";
const grant = createGrant({ roles: { orgs: { acme: 'owner' } }, orgGates: { acme: { blocked: MESSAGE } } });

describe('G2: decisionError and errorAnswer for reason policy', () => {
  it('a policy decision is 403 with the message in the body and as error_description', () => {
    const d = authorize(grant, 'acme/web', 'repo:read');
    const a = decisionError(d);
    expect(a.status).toBe(403);
    expect(a.body).toEqual({ error: 'forbidden', reason: 'policy', message: MESSAGE });
    expect(a.headers['www-authenticate']).toBe(`Bearer realm="svc", error="insufficient_scope", error_description="${MESSAGE}"`);
    expect(errorAnswer(a)).toBe(a);
    expect(decisionError(d, { realm: 'api' }).headers['www-authenticate']).toMatch(/^Bearer realm="api", error="insufficient_scope"/);
  });

  it('a ForbiddenError with reason policy answers the same', () => {
    const a = errorAnswer(new ForbiddenError(MESSAGE, { reason: 'policy' }));
    expect(a.status).toBe(403);
    expect(a.body).toEqual({ error: 'forbidden', reason: 'policy', message: MESSAGE });
    expect(a.headers['www-authenticate']).toContain(`error_description="${MESSAGE}"`);
  });

  it('a policy decision without a message still answers 403 policy with a fixed text', () => {
    const a = decisionError({ allowed: false, reason: 'policy' });
    expect(a.status).toBe(403);
    expect(a.body.reason).toBe('policy');
    expect(a.body.message.length).toBeGreaterThan(0);
  });

  it('attack: quotes, backslashes, line breaks, non-ASCII and a token in the message never break the header nor leak', () => {
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2ln';
    const hostile = `acme says "no"\\\r\nSet-Cookie: x=1 — ${jwt}`;
    const d = authorize(createGrant({ roles: { orgs: { acme: 'owner' } }, orgGates: { acme: { blocked: hostile } } }), 'acme', 'org:read');
    const a = decisionError(d);
    const header = a.headers['www-authenticate'] as string;
    const description = /error_description="([^"]*)"$/.exec(header)?.[1];
    expect(description).toBeDefined();
    expect(description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/);
    expect(header).not.toContain(jwt);
    expect(a.body.message).not.toContain(jwt);
    expect(a.body.message).toContain('acme says "no"');
  });
});

function fetchJson(
  port: number,
  path: string,
  token?: string,
): Promise<{ status: number; challenge: string | null; body: Record<string, unknown> }> {
  return fetch(`http://127.0.0.1:${port}${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }).then(
    async (r) => ({ status: r.status, challenge: r.headers.get('www-authenticate'), body: (await r.json()) as Record<string, unknown> }),
  );
}

describe('G2: a policy refusal over real HTTP', () => {
  let node: Server;
  let hono: Server;
  let session = '';
  beforeAll(async () => {
    const { auth } = await testAuth();
    session = await auth.issueSession('alice');
    node = createServer((_req, res) => {
      const d: Decision = authorize(grant, 'acme/web', 'repo:write');
      if (!d.allowed) sendError(res, decisionError(d));
    }).listen(0, '127.0.0.1');
    await listening(node);
    const app = new Hono<PrincipalEnv>();
    app.onError(onError());
    app.use(svcAuth(auth));
    app.get('/org', () => {
      throw new ForbiddenError(MESSAGE, { reason: 'policy' });
    });
    hono = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await listening(hono);
  });
  afterAll(async () => {
    await closeServer(node);
    await closeServer(hono);
  });

  it('node:http: sendError(decisionError(d)) writes 403, the challenge and the message', async () => {
    const r = await fetchJson((node.address() as AddressInfo).port, '/');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'forbidden', reason: 'policy', message: MESSAGE });
    expect(r.challenge).toBe(`Bearer realm="svc", error="insufficient_scope", error_description="${MESSAGE}"`);
  });

  it('Hono: a handler throwing ForbiddenError reason policy is answered 403 with the message', async () => {
    const r = await fetchJson((hono.address() as AddressInfo).port, '/org', session);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'forbidden', reason: 'policy', message: MESSAGE });
    expect(r.challenge).toContain(`error_description="${MESSAGE}"`);
  });
});
