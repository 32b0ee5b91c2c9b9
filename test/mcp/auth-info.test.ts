import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { mcpPrincipal, mcpTokenVerifier } from '../../src/mcp';
import { PERMISSIONS } from '../../src/core/vocabulary';
import { MemoryTokenStore } from '../../src/stores';
import { testAuth, type TestAuth } from '../support/auth';
import { DAY_MS } from '../support/clock';
import { caught, rejection } from '../support/errors';

const codeOf = (err: unknown): unknown => (err as { code?: unknown }).code;

describe('mcpTokenVerifier', () => {
  let s: TestAuth;
  let session = '';
  beforeAll(async () => {
    s = await testAuth();
    session = await s.auth.issueSession('alice');
  });

  it('a PAT: clientId is the token id, scopes are --scope strings, expiresAt epoch seconds, extra.principal authorizes', async () => {
    const me = s.auth.client(await s.auth.authenticate(session));
    const { token, info } = await me.token.create({ name: 'mcp-ro', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const a = await mcpTokenVerifier(s.auth, { resource: 'https://svc.test/mcp' }).verifyAccessToken(token);
    expect(a.clientId).toBe(info.id);
    expect(a.scopes).toEqual(['acme/web=repo:read']);
    expect(a.expiresAt).toBe(info.expiresAt.getTime() / 1000);
    expect(a.resource?.href).toBe('https://svc.test/mcp');
    expect(a.token).toBe(token);
    const p = mcpPrincipal(a);
    expect(p).toBe(a.extra?.['principal']);
    expect(s.auth.authorize(p, 'acme/web', 'repo:read').allowed).toBe(true);
    expect(s.auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('a session: clientId session:<user>, full access as one global scope string, expiresAt always set', async () => {
    const a = await mcpTokenVerifier(s.auth).verifyAccessToken(session);
    expect(a.clientId).toBe('session:alice');
    expect(a.scopes).toEqual([PERMISSIONS.join(',')]);
    expect(typeof a.expiresAt).toBe('number');
    expect(a.resource).toBeUndefined();
  });

  it('an unscoped child of a scoped PAT reports the scopes it inherits', async () => {
    const me = s.auth.client(await s.auth.authenticate(session));
    const parent = await me.token.create({ name: 'parent', scopes: [{ resource: 'acme', permissions: ['repo:read'] }] });
    const child = await s.auth.client(await s.auth.authenticate(parent.token)).token.create({ name: 'child' });
    expect((await mcpTokenVerifier(s.auth).verifyAccessToken(child.token)).scopes).toEqual(['acme=repo:read']);
  });

  it('a revoked token is the SDK InvalidTokenError with a description a person can act on, never the token', async () => {
    const me = s.auth.client(await s.auth.authenticate(session));
    const { token } = await me.token.create({ name: 'soon-revoked' });
    await me.token.revoke('soon-revoked');
    const err = await rejection(mcpTokenVerifier(s.auth).verifyAccessToken(token));
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect((err as Error).message).toBe(
      'the token has been revoked: sign in again; for a personal access token, create a new one with `svc token create`',
    );
    expect((err as Error).message).not.toContain(token);
  });

  it('an expired token and a forged one are InvalidTokenError; renewHint replaces the next step', async () => {
    const me = s.auth.client(await s.auth.authenticate(session));
    const { token } = await me.token.create({ name: 'short', expiresIn: '1d' });
    s.clock.advance(2 * DAY_MS);
    const v = mcpTokenVerifier(s.auth, { renewHint: 'ask your admin' });
    const expired = await rejection(v.verifyAccessToken(token));
    expect(expired).toBeInstanceOf(InvalidTokenError);
    expect((expired as Error).message).toBe('the token has expired: ask your admin');
    s.clock.advance(-2 * DAY_MS);
    const forged = await rejection(v.verifyAccessToken(`${token.slice(0, -4)}AAAA`));
    expect(forged).toBeInstanceOf(InvalidTokenError);
    expect(await rejection(v.verifyAccessToken('x'.repeat(9000)))).toBeInstanceOf(InvalidTokenError);
  });

  it('a token store outage fails closed as the SDK ServerError, never an AuthInfo', async () => {
    class Down extends MemoryTokenStore {
      override readChain(): never {
        throw new Error('connection refused to db.internal:5432');
      }
    }
    const broken = await testAuth({ tokens: new Down() });
    const alice = broken.auth.client(await broken.auth.principalFor('alice')); // readChain fails: a session token could not be read
    const { token } = await alice.token.create({ name: 'ci' });
    const err = await rejection(mcpTokenVerifier(broken.auth).verifyAccessToken(token));
    expect(err).toBeInstanceOf(ServerError);
    expect((err as Error).message).not.toContain('db.internal');
  });

  it('misuse fails when the verifier is built, with ValidationError', () => {
    for (const bad of [
      () => mcpTokenVerifier({} as never),
      () => mcpTokenVerifier(s.auth, { resource: 'not a url' }),
      () => mcpTokenVerifier(s.auth, { resource: 'ftp://x/mcp' }),
      () => mcpTokenVerifier(s.auth, { renewHint: 'say "hi"' }),
      () => mcpTokenVerifier(s.auth, { scopes: [] } as never),
    ]) {
      expect(codeOf(caught(bad))).toBe('validation');
    }
  });
});

describe('mcpPrincipal', () => {
  it('forged principal: a copy, a plain object or a missing authInfo is AuthenticationError missing', async () => {
    const s = await testAuth();
    const real = mcpPrincipal(await mcpTokenVerifier(s.auth).verifyAccessToken(await s.auth.issueSession('bob')));
    const forged: AuthInfo[] = [
      { token: 't', clientId: 'c', scopes: [], extra: { principal: { ...real } } },
      { token: 't', clientId: 'c', scopes: [], extra: { principal: { kind: 'session', userId: 'alice', expiresAt: new Date() } } },
      { token: 't', clientId: 'c', scopes: [] },
    ];
    for (const info of [...forged, undefined]) {
      expect(caught(() => mcpPrincipal(info))).toMatchObject({ code: 'authentication', reason: 'missing' });
    }
  });
});

describe('the verifier in the SDK requireBearerAuth, unchanged (Express)', () => {
  let server: Server;
  let base = '';
  let s: TestAuth;
  beforeAll(async () => {
    // The SDK middleware compares expiresAt with the real clock.
    s = await testAuth({ now: () => new Date() });
    const app = express();
    const meta = 'https://svc.test/.well-known/oauth-protected-resource/mcp';
    app.use('/mcp', requireBearerAuth({ verifier: mcpTokenVerifier(s.auth), resourceMetadataUrl: meta }), (req, res) => {
      const p = mcpPrincipal((req as { auth?: AuthInfo }).auth);
      res.json({ user: p.userId, kind: p.kind });
    });
    server = await new Promise<Server>((done) => {
      const srv = app.listen(0, '127.0.0.1', () => done(srv));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('accepts a PAT and hands the principal to the route', async () => {
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const { token } = await alice.token.create({ name: 'express' });
    const r = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ user: 'alice', kind: 'pat' });
  });

  it('a revoked PAT is 401 invalid_token with resource_metadata and the actionable description', async () => {
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const { token } = await alice.token.create({ name: 'revoked-express' });
    await alice.token.revoke('revoked-express');
    const r = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="the token has been revoked: sign in again; for a personal access token, create a new one with `svc token create`", resource_metadata="https://svc.test/.well-known/oauth-protected-resource/mcp"',
    );
  });
});
