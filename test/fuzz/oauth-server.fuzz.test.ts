/**
 * Fuzz: the authorization server of `svc-auth/oauth` on a real node:http
 * server, over method, path (every endpoint, the pages, unknown paths),
 * query parameters, body (forms, JSON, garbage) and the headers a browser or
 * a hostile client sends (Content-Type, Origin, Cookie, Sec-Fetch-Site).
 * Rule: every request gets an answer with a status from a short list (no 5xx:
 * nothing here is a server fault), `handle` never rejects, no answer carries a
 * stack trace, and the log holds no server error.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileString, PARAMS, TIMEOUT } from './harness';
import { register, startServer, type Running } from '../support/oauth';

const SANE = new Set([200, 201, 204, 302, 303, 400, 401, 403, 404, 405, 413, 415]);
const STACK = /\n\s+at .+\(|\bat (?:async )?[\w.]+ \(|node_modules/;

const PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
  '/oauth/jwks',
  '/oauth/device_authorization',
  '/oauth/device',
  '/oauth/interaction/abc',
  '/oauth/interaction/abc/login',
  '/oauth/interaction/abc/consent',
  '/oauth/interaction/',
  '/oauth/interaction/a/b/c',
  '/oauth/nothing',
  '/oauth/',
  '/oauth/authorize/xyz',
  '/oauth/device/xyz',
  '/oauth/%2e%2e/token',
];

describe('fuzz: the authorization server answers every request', () => {
  let s: Running;
  let clientId = '';
  beforeAll(async () => {
    s = await startServer();
    clientId = (await register(s.base)).client_id;
  });
  afterAll(() => s.close());

  it(
    'a sane status, no stack, no server error, whatever the request',
    async () => {
      const value = fc.oneof(
        hostileString,
        fc.constantFrom('code', 'S256', 'plain', 'repo:read', 'openid offline_access', 'authorization_code', 'refresh_token'),
        fc.constantFrom(
          'urn:ietf:params:oauth:grant-type:device_code',
          'http://127.0.0.1:9/callback',
          'https://evil.example/',
          '__proto__',
        ),
        fc.string({ maxLength: 40 }),
      );
      const params = fc.dictionary(
        fc.constantFrom(
          'client_id',
          'redirect_uri',
          'response_type',
          'scope',
          'state',
          'code_challenge',
          'code_challenge_method',
          'resource',
          'grant_type',
          'code',
          'refresh_token',
          'token',
          'device_code',
          'user_code',
          'csrf',
          'decision',
          'user',
          'xsrf',
          'prompt',
          'request',
          'constructor',
        ),
        value,
        { maxKeys: 8 },
      );
      const arb = fc.record({
        method: fc.constantFrom('GET', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
        path: fc.oneof(
          fc.constantFrom(...PATHS),
          hostileString.map((h) => `/oauth/${encodeURIComponent(h.replace(/[\ud800-\udfff]/g, '?'))}`),
        ),
        query: params,
        body: fc.oneof(
          params.map((p) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(p).toString() })),
          fc.jsonValue({ maxDepth: 3 }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
          fc.record({
            type: fc.constantFrom('text/plain', 'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'),
            text: hostileString,
          }),
        ),
        useClient: fc.boolean(),
        origin: fc.option(fc.constantFrom('http://evil.example', 'null', 'http://127.0.0.1:9'), { nil: undefined }),
        cookie: fc.option(
          fc.constantFrom(
            'svc_oauth_interaction=abc',
            'svc_oauth_session=x; svc_oauth_session.sig=y',
            'svc_oauth_resume=abc',
            '__proto__=1',
          ),
          { nil: undefined },
        ),
      });
      await fc.assert(
        fc.asyncProperty(arb, async (c) => {
          const query = new URLSearchParams(c.query);
          if (c.useClient) query.set('client_id', clientId);
          const headers: Record<string, string> = {};
          if (c.origin !== undefined) headers.origin = c.origin;
          if (c.cookie !== undefined) headers.cookie = c.cookie;
          const init: RequestInit = { method: c.method, headers, redirect: 'manual' };
          if (c.method !== 'GET' && c.method !== 'OPTIONS') {
            headers['content-type'] = c.body.type;
            init.body = c.body.text;
          }
          const res = await fetch(`${s.base}${c.path}?${query.toString()}`, init);
          const text = await res.text();
          expect(SANE.has(res.status), `${c.method} ${c.path} -> ${res.status} ${text.slice(0, 300)}`).toBe(true);
          expect(text).not.toMatch(STACK);
        }),
        PARAMS,
      );
      expect(s.logs.filter((l) => /server_error|error:/.test(l))).toEqual([]);
    },
    TIMEOUT,
  );
});
