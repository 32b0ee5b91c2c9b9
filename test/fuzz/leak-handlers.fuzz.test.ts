/**
 * Fuzz: the leak endpoints (credentialRevocationHandler and
 * githubSecretScanningHandler, node and fetch forms) over method, headers
 * (Content-Type, the GitHub signature headers: genuine, of another body,
 * forged, garbage) and body (the documented shapes with real and revoked
 * tokens, any JSON, hostile strings, deep nesting, bytes that are not UTF-8).
 * Rule: no handler ever rejects; every request gets an answer with a status
 * from a short list (no 5xx: the store and the keys are up), no stack trace,
 * and no token value of ours. The node forms run behind a real node:http
 * server with the lenient parser, reached over raw sockets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialRevocationHandler, githubSecretScanningHandler } from '../../src/leaks';
import { MemoryTokenStore } from '../../src/stores';
import { keysDocument, signed, signingKey, type SigningKey } from '../leaks/github-play';
import { world, type World } from '../leaks/servers';
import { expectNoPollution, hostileString, PARAMS, TIMEOUT } from './harness';
import { encode, exchange } from './raw-http';

const SANE = new Set([200, 202, 400, 403, 405, 413, 415, 429]);
const STACK = /\n\s+at .+\(|\bat (?:async )?[\w.]+ \(/;

let w: World;
let github: SigningKey;
let tokens: string[] = [];
beforeAll(async () => {
  w = await world(new MemoryTokenStore());
  github = signingKey('fuzz-key');
  const alice = w.auth.client(await w.auth.principalFor('alice'));
  // Enough tokens that revocations keep happening across the campaign.
  for (let i = 0; i < 20; i++) tokens.push((await alice.token.create({ name: `t${i}` })).token);
  const gone = (await alice.token.create({ name: 'gone' })).token;
  await alice.token.revoke('gone');
  tokens = [...tokens, gone, await w.auth.issueSession('bob'), await w.auth.issueComponentToken('alice')];
});

interface Case {
  target: 'revoke' | 'github';
  method: string;
  headers: [string, string][];
  body: string;
  /** How the GitHub headers relate to the body. */
  signature: 'genuine' | 'other-body' | 'forged' | 'garbage' | 'none';
}

function caseArb(): fc.Arbitrary<Case> {
  const token = fc.oneof(fc.constantFrom(...tokens), hostileString);
  const match = fc.record(
    {
      token,
      type: fc.oneof(fc.constant('svc_auth_pat'), hostileString),
      url: fc.oneof(fc.constant(''), hostileString),
      source: hostileString,
    },
    { requiredKeys: ['token', 'type'] },
  );
  const body = fc.oneof(
    { arbitrary: fc.array(token, { maxLength: 8 }).map((credentials) => JSON.stringify({ credentials })), weight: 4 },
    { arbitrary: fc.array(match, { maxLength: 6 }).map((m) => JSON.stringify(m)), weight: 4 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)), weight: 2 },
    { arbitrary: hostileString, weight: 1 },
    { arbitrary: fc.constant('{"credentials":[],"__proto__":{"polluted":1}}'), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 50_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`), weight: 1 },
  );
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 6 },
    { arbitrary: fc.constantFrom('application/json; charset=utf-16', 'text/plain', 'application/JSON;charset="UTF-8"'), weight: 1 },
    { arbitrary: hostileString, weight: 1 },
  );
  return fc
    .record({
      target: fc.constantFrom('revoke' as const, 'github' as const),
      method: fc.oneof(
        { arbitrary: fc.constant('POST'), weight: 6 },
        { arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS'), weight: 1 },
      ),
      contentType: fc.option(contentType, { nil: undefined }),
      extra: fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), hostileString), { maxLength: 2 }),
      body,
      signature: fc.constantFrom(
        'genuine' as const,
        'genuine' as const,
        'other-body' as const,
        'forged' as const,
        'garbage' as const,
        'none' as const,
      ),
      garbage: fc.tuple(hostileString, hostileString),
    })
    .map(({ contentType, extra, garbage, ...rest }) => {
      const headers: [string, string][] = [];
      if (contentType !== undefined) headers.push(['content-type', contentType]);
      const sign = (b: string, key: SigningKey): [string, string][] =>
        Object.entries(signed(b, key)).filter(([k]) => k !== 'content-type') as [string, string][];
      if (rest.signature === 'genuine') headers.push(...sign(rest.body, github));
      if (rest.signature === 'other-body') headers.push(...sign(`${rest.body} `, github));
      if (rest.signature === 'forged') headers.push(...sign(rest.body, signingKey(github.id)));
      if (rest.signature === 'garbage')
        headers.push(['github-public-key-identifier', garbage[0]], ['github-public-key-signature', garbage[1]]);
      return { ...rest, headers: [...headers, ...extra] };
    });
}

function handlers() {
  return {
    revoke: [
      credentialRevocationHandler(w.auth, { rateLimit: false }),
      credentialRevocationHandler(w.auth, { rateLimit: { requests: 3, windowMs: 60_000 } }),
    ],
    github: [
      githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keys: keysDocument(github) }),
      githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keys: keysDocument(github), feedback: 'token_raw' }),
    ],
  };
}

function checkAnswer(status: number, text: string, c: Case, raw: boolean): void {
  expect(SANE.has(status), `status ${status} for ${JSON.stringify(c).slice(0, 300)}`).toBe(true);
  expect(text).not.toMatch(STACK);
  // token_raw echoes what GitHub sent, by design; nothing else ever holds a token value.
  if (!raw) for (const t of tokens) expect(text).not.toContain(t);
}

describe('fuzz: the leak endpoints, fetch forms', () => {
  it(
    'always answer, with a sane status, no stack and no token value',
    async () => {
      const h = handlers();
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(caseArb(), fc.nat({ max: 1 }), async (c, which) => {
          const clean = (s: string): string => s.replace(/[^\x20-\x7e\x80-\xff\t]/g, '?');
          let req: Request;
          try {
            req = new Request('http://127.0.0.1/x', {
              method: c.method,
              headers: c.headers.map(([k, v]) => [k, clean(v)]),
              ...(c.method === 'GET' ? {} : { body: c.body }),
            });
          } catch {
            return; // a runtime refuses such a request before any handler
          }
          const res =
            c.target === 'revoke'
              ? await h.revoke[which]!.fetch(req, { clientAddress: '198.51.100.1' })
              : await h.github[which]!.fetch(req);
          statuses.add(res.status);
          checkAnswer(res.status, await res.text(), c, c.target === 'github' && which === 1);
          expectNoPollution();
        }),
        PARAMS,
      );
      // The campaign reached past the refusals: accepted revocations and verified GitHub requests.
      for (const status of [200, 202, 400, 403]) expect(statuses).toContain(status);
    },
    TIMEOUT,
  );
});

describe('fuzz: the leak endpoints, node forms behind node:http', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done())))));

  it(
    'always answer; no handler promise ever rejects',
    async () => {
      const h = handlers();
      const outcomes: Promise<unknown>[] = [];
      const ports: number[] = [];
      for (const list of [h.revoke, h.github]) {
        for (const one of list) {
          const srv = createServer({ insecureHTTPParser: true }, (req, res) => {
            outcomes.push(
              one.node(req, res).then(
                () => 'ok',
                (e: unknown) => e,
              ),
            );
          });
          await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
          servers.push(srv);
          ports.push((srv.address() as AddressInfo).port);
        }
      }
      await fc.assert(
        fc.asyncProperty(caseArb(), fc.nat({ max: 1 }), async (c, which) => {
          const port = ports[(c.target === 'revoke' ? 0 : 2) + which] as number;
          const clean = (s: string): string => s.replace(/[\r\n]/g, '');
          const answer = await exchange(
            port,
            encode({
              method: c.method,
              target: '/x',
              headers: [['host', '127.0.0.1'], ...c.headers.map(([k, v]): [string, string] => [k, clean(v)])],
              body: c.body,
              framing: 'length',
            }),
          );
          // Bytes node's own parser refuses (400) never reach a handler.
          if (answer === 'closed') return;
          if (answer.status === 400 && !answer.body.startsWith('{')) return;
          checkAnswer(answer.status, answer.body, c, c.target === 'github' && which === 1);
        }),
        { ...PARAMS, numRuns: Math.min(PARAMS.numRuns ?? 300, Number(process.env.FUZZ_HTTP_RUNS ?? 10_000)) },
      );
      const settled = await Promise.all(outcomes);
      expect(settled.every((o) => o === 'ok')).toBe(true);
    },
    TIMEOUT,
  );
});
