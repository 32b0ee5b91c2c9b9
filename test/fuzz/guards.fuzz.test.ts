/**
 * Fuzz (issue 18, item 1): no handler the library returns ever rejects or throws. Hostile requests
 * (method, target, Authorization variants, huge and duplicated headers, odd Host, bodies and their
 * framing) go through every guard and adapter, in the real frameworks on loopback (and in process
 * for the fetch handlers), with `resource`, `thing` and route handlers that throw (test/fuzz/guard-apps.ts).
 *
 * For every request a handler saw: an answer always comes, with a proper status; an error answer is
 * JSON `{ error, message }` with no stack, no token, no foreign message and no cookie set before the
 * failure. Requests the server refused before any handler ran (node's parser: 400, 431; a CONNECT;
 * @hono/node-server's Host check) must still be refusals. Throughout: no rejected promise of a
 * library-returned handler, no unhandled rejection, no uncaught exception.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorld, type World } from '../contract/examples/world';
import {
  ROUTE_KINDS,
  RESOURCE_KINDS,
  SECRET,
  THING_KINDS,
  expressTarget,
  fastifyTarget,
  fetchTarget,
  honoTarget,
  nodeTarget,
  type Target,
} from './guard-apps';
import { hostileString, PARAMS, RUNS } from './harness';
import { encode, exchange, type RawAnswer, type RawRequest } from './raw-http';

// Each case is a real connection: the long campaign (`npm run fuzz`) is capped per target.
const HTTP_RUNS = Math.min(RUNS, Number(process.env.FUZZ_HTTP_RUNS ?? 10_000));
const HTTP_TIMEOUT = Math.max(120_000, HTTP_RUNS * 50);

let w: World;
const tokens = (): string[] => [w.alice, w.reader, w.docs, w.bob, w.mallory, w.revoked];

const unhandled: unknown[] = [];
const onUnhandled = (err: unknown): void => void unhandled.push(err);
beforeAll(async () => {
  w = await makeWorld();
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
});

// ---- what a hostile client sends --------------------------------------------------------------
// Most cases are bytes a server accepts, so that they reach the handlers; a few are not (control
// characters, a method that is no token, a header over node's limit) and must still be refused.

/** Only what HTTP allows in a header value (tab, visible ASCII, obs-text): the server parses it. */
const wire = (s: string): string => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

const method = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') },
  { weight: 8, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'QUERY', 'TRACE', 'PROPFIND', 'CONNECT') },
  { weight: 2, arbitrary: fc.constantFrom('get', 'BREW', 'G\u0000T', 'X'.repeat(200), '') },
);

const pathChar = fc.constantFrom(...'aZ09/%.-_~:@!$&\'()*+,;=?#[]\\^`{|}"<>'.split(''), '\u0000', '\u00ff', '\u0101', 'é');
const target = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('/r/acme/web', '/r/acme/api', '/r/ACME/Web', '/plain', '/') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '*',
      'http://evil.test/r/acme/web',
      '//r/acme/web',
      '/r/%E0%A4%A/x',
      '/r/acme/web?token=x',
      '/r/..%2F../web',
      '/r/acme',
      `/r/acme/web/${'a'.repeat(9000)}`,
      '/r/%00/%2e%2e',
    ),
  },
  // What a URL may hold (RFC 3986 pchar, `/`, `?`, `%` in any arrangement), then anything at all.
  {
    weight: 3,
    arbitrary: fc.string({ unit: pathChar, maxLength: 60 }).map((s) => `/r/${s.replace(/[^A-Za-z0-9/%.\-_~:@!$&'()*+,;=?]/g, '')}`),
  },
  { weight: 1, arbitrary: fc.string({ unit: pathChar, maxLength: 60 }).map((s) => `/r/${s}`) },
);

const host = fc.oneof(
  { weight: 3, arbitrary: fc.constant<[string, string][]>([['Host', '127.0.0.1']]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<[string, string][]>(
      [],
      [['Host', '']],
      [['Host', 'evil.test:99999']],
      [['Host', '[::1']],
      [['Host', 'a/b']],
      [['Host', '@evil.test']],
      [['Host', 'h'.repeat(300)]],
      [
        ['Host', '127.0.0.1'],
        ['Host', 'evil.test'],
      ],
      [['HOST', 'localhost:0']],
    ),
  },
);

const authorization = fc.oneof(
  { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
  { weight: 10, arbitrary: fc.nat({ max: 5 }).map((i): [string, string][] => [['Authorization', `Bearer ${tokens()[i]}`]]) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat({ max: 5 }), fc.constantFrom('bearer ', 'BEARER   ', 'Bearer\t', ' Bearer ', 'Bearer,', 'Bearer  '))
      .map(([i, scheme]): [string, string][] => [['Authorization', `${scheme}${tokens()[i]}`]]),
  },
  {
    weight: 2,
    arbitrary: fc.nat({ max: 5 }).map((i): [string, string][] => [
      ['Authorization', `Bearer ${tokens()[i]}`],
      ['authorization', `Bearer ${tokens()[(i + 1) % 6]}`],
    ]),
  },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 5 }).map((i): [string, string][] => [['Authorization', `Bearer ${tokens()[i]}, Bearer ${tokens()[i]}`]]),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat({ max: 5 }), fc.nat({ max: 300 })).map(([i, at]): [string, string][] => {
      const t = tokens()[i] ?? '';
      return [['Authorization', `Bearer ${t.slice(0, at)}A${t.slice(at + 1)}`]];
    }),
  },
  { weight: 2, arbitrary: hostileString.map((s): [string, string][] => [['Authorization', `Bearer ${wire(s)}`]]) },
  { weight: 1, arbitrary: hostileString.map((s): [string, string][] => [['Authorization', wire(s)]]) },
  { weight: 1, arbitrary: hostileString.map((s): [string, string][] => [['Authorization', `Bearer ${s}`]]) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(8191, 8193, 12_000, 12_000, 40_000)
      .map((n): [string, string][] => [['Authorization', `Bearer ${'a'.repeat(n)}`]]),
  },
  { weight: 1, arbitrary: fc.constant<[string, string][]>([['Authorization', 'Basic dXNlcjpwYXNz']]) },
);

const headerName = fc.string({ unit: fc.constantFrom(..."abcxyz-_!#$%&'*+.^`|~019".split('')), minLength: 1, maxLength: 10 });
const extraHeaders = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.array(
      fc.tuple(
        headerName.map((n) => `x-f-${n}`),
        hostileString.map(wire),
      ),
      { maxLength: 4 },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.tuple(
        headerName.map((n) => `x-f-${n}`),
        hostileString,
      ),
      { maxLength: 4 },
    ),
  },
  { weight: 1, arbitrary: fc.constant<[string, string][]>([['X-Big', 'a'.repeat(20_000)]]) },
  {
    weight: 1,
    arbitrary: fc.constant<[string, string][]>(Array.from({ length: 200 }, (_, i): [string, string] => [`x-many-${i}`, 'v'])),
  },
);

const contentType = fc.constantFrom<[string, string][]>(
  [],
  [['Content-Type', 'application/json']],
  [['Content-Type', 'text/plain']],
  [['Content-Type', 'application/x-www-form-urlencoded']],
  [['Content-Type', 'application/json; charset=utf-16']],
  [['Content-Type', 'multipart/form-data; boundary=x']],
);

const body = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom('{', '{"a":1}', JSON.stringify({ token: SECRET }), '[]', '{"__proto__":{"polluted":1}}') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

const behaviour = fc.record({
  resource: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('params', 'fixed') },
    { weight: 4, arbitrary: fc.constantFrom(...RESOURCE_KINDS) },
  ),
  thing: fc.oneof({ weight: 6, arbitrary: fc.constant('none') }, { weight: 4, arbitrary: fc.constantFrom(...THING_KINDS) }),
  route: fc.oneof({ weight: 5, arbitrary: fc.constant('ok') }, { weight: 5, arbitrary: fc.constantFrom(...ROUTE_KINDS) }),
});

interface Case {
  req: RawRequest;
}

let caseNo = 0;
const request: fc.Arbitrary<Case> = fc
  .record({
    method,
    target,
    host,
    authorization,
    extraHeaders,
    contentType,
    body,
    behaviour,
    framing: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('length', 'chunked', 'none') },
      // Content-Length and chunked at once: a smuggling attempt, refused by the parser.
      { weight: 1, arbitrary: fc.constant('both') },
    ),
  })
  .map((c) => {
    const id = String(++caseNo);
    const framing = c.body === '' && c.framing === 'none' ? 'none' : c.framing === 'none' ? 'length' : c.framing;
    const headers: [string, string][] = [
      ...c.host,
      ['X-Case', id],
      ['X-Behave', `r=${c.behaviour.resource};t=${c.behaviour.thing};h=${c.behaviour.route}`],
      ...c.authorization,
      ...c.contentType,
      ...c.extraHeaders,
    ];
    return { req: { method: c.method, target: c.target, headers, body: c.body, framing } };
  });

// ---- what every answer must be -------------------------------------------------------------------

const statuses = new Map<string, Map<number, number>>();
function count(name: string, status: number): void {
  const m = statuses.get(name) ?? new Map<number, number>();
  m.set(status, (m.get(status) ?? 0) + 1);
  statuses.set(name, m);
}

function secretsIn(text: string): string[] {
  return [SECRET, ...tokens(), 'db password'].filter((s) => text.includes(s));
}

/** The checks on an answer a handler of the library produced (or a 4xx Fastify gave after errorHandler rethrew). */
function expectProperAnswer(methodName: string, status: number, headers: Map<string, string[]>, text: string): void {
  expect(Number.isInteger(status) && (status === 200 || (status >= 400 && status <= 599))).toBe(true);
  if (status >= 400) expect(headers.get('set-cookie') ?? []).toEqual([]);
  expect(secretsIn(text)).toEqual([]);
  expect(secretsIn([...headers.values()].flat().join('\n'))).toEqual([]);
  expect(text).not.toMatch(/\n\s+at /);
  if (methodName === 'HEAD') return;
  expect(headers.get('content-type')?.[0] ?? '').toMatch(/^application\/json/);
  const parsed: unknown = JSON.parse(text);
  if (status === 200) {
    expect(parsed).toEqual({ ok: true });
    return;
  }
  expect(typeof (parsed as { error?: unknown }).error).toBe('string');
  expect(typeof (parsed as { message?: unknown }).message).toBe('string');
}

/** Send one case to a target; the answer's status (0: closed, negative: refused before any handler ran). */
async function overHttp(t: Target, c: Case): Promise<number> {
  const answer: RawAnswer = await exchange(t.port as number, encode(c.req));
  const id = c.req.headers.find(([n]) => n === 'X-Case')?.[1] ?? '';
  if (!t.seen.has(id)) {
    // Refused before any handler ran: by node's parser (400, 431), @hono/node-server's checks (400), or a CONNECT (closed).
    if (answer !== 'closed') expect([400, 413, 414, 431, 505]).toContain(answer.status);
    const status = answer === 'closed' ? 0 : -answer.status;
    count(t.name, status);
    return status;
  }
  expect(answer).not.toBe('closed');
  if (answer === 'closed') return 0;
  count(t.name, answer.status);
  expectProperAnswer(c.req.method, answer.status, answer.headers, answer.body);
  return answer.status;
}

async function inProcess(t: Target, c: Case): Promise<number | undefined> {
  const headers = new Headers();
  for (const [name, value] of c.req.headers) {
    try {
      headers.append(name, value);
    } catch {
      // The fetch client itself refuses this header: a server never sees it.
    }
  }
  let req: Request;
  try {
    const bodyless = ['GET', 'HEAD'].includes(c.req.method.toUpperCase());
    req = new Request(`http://127.0.0.1${c.req.target}`, { method: c.req.method, headers, body: bodyless ? null : c.req.body });
  } catch {
    return undefined; // not a Request anyone can build
  }
  const res = await (t.fetch as (r: Request) => Promise<Response>)(req);
  expect(res).toBeInstanceOf(Response);
  count(t.name, res.status);
  const resHeaders = new Map<string, string[]>();
  res.headers.forEach((v, k) => resHeaders.set(k, [...(resHeaders.get(k) ?? []), v]));
  const cookies = res.headers.getSetCookie();
  if (cookies.length > 0) resHeaders.set('set-cookie', cookies);
  expectProperAnswer(req.method, res.status, resHeaders, await res.text());
  return res.status;
}

const run = (t: Target, c: Case): Promise<number | undefined> => (t.port === undefined ? inProcess(t, c) : overHttp(t, c));

// Every callback and route behaviour on an otherwise well-formed, allowed request, with the answer
// each must give: the fuzz draws them at random, this runs each one on every target.
type Row = [resource: string, thing: string, route: string, status: number];
const GRID: Row[] = [
  ['params', 'none', 'ok', 200],
  ['fixed', 'none', 'ok', 200],
  ['junk', 'none', 'ok', 400],
  ['number', 'none', 'ok', 400],
  ['object', 'none', 'ok', 400],
  ['promise', 'none', 'ok', 400],
  ['throw-foreign', 'none', 'ok', 500],
  ['throw-ours', 'none', 'ok', 404],
  ['throw-string', 'none', 'ok', 500],
  ['throw-hostile', 'none', 'ok', 500],
  ['fixed', 'doc', 'ok', 200],
  ['fixed', 'junk', 'ok', 400],
  ['fixed', 'throw-foreign', 'ok', 500],
  ['fixed', 'throw-hostile', 'ok', 500],
  ['fixed', 'none', 'cookie-forbidden', 403],
  ['fixed', 'none', 'throw-foreign', 500],
  ['fixed', 'none', 'reject-foreign', 500],
  ['fixed', 'none', 'throw-validation', 400],
  ['fixed', 'none', 'throw-unavailable', 503],
  ['fixed', 'none', 'throw-string', 500],
  ['fixed', 'none', 'throw-getters', 500],
  ['fixed', 'none', 'throw-hostile', 500],
];

function gridCase(row: Row, methodName: string): Case {
  const [resource, thing, route] = row;
  return {
    req: {
      method: methodName,
      target: '/r/acme/web',
      headers: [
        ['Host', '127.0.0.1'],
        ['X-Case', `grid-${methodName}-${resource}-${thing}-${route}`],
        ['X-Behave', `r=${resource};t=${thing};h=${route}`],
        ['Authorization', `Bearer ${w.alice}`],
      ],
      body: '',
      framing: 'none',
    },
  };
}

const targets: [string, (auth: World['auth']) => Promise<Target>][] = [
  ['node:http requireAuth', (auth) => nodeTarget(auth)],
  ['fetch withAuth (served)', (auth) => fetchTarget(auth, true)],
  ['fetch withAuth (in process)', (auth) => fetchTarget(auth, false)],
  ['Express 5', (auth) => expressTarget(auth, 5)],
  ['Express 4', (auth) => expressTarget(auth, 4)],
  ['Hono (@hono/node-server)', (auth) => honoTarget(auth, true)],
  ['Hono (in process)', (auth) => honoTarget(auth, false)],
  ['Fastify', (auth) => fastifyTarget(auth)],
];

describe.each(targets)('fuzz: guards on %s', (_name, build) => {
  let t: Target;
  beforeAll(async () => {
    t = await build(w.auth);
  });
  afterAll(async () => t?.stop());

  it(
    'hostile requests and throwing callbacks: every request gets a proper answer, no promise rejects, nothing goes unhandled',
    async () => {
      await fc.assert(
        fc.asyncProperty(request, async (c) => {
          await run(t, c);
          expect(t.rejections).toEqual([]);
          expect(unhandled).toEqual([]);
        }),
        { ...PARAMS, numRuns: HTTP_RUNS },
      );
      // Let any late rejection surface before the verdict.
      await new Promise((r) => setTimeout(r, 50));
      expect(t.rejections).toEqual([]);
      expect(unhandled).toEqual([]);
      if (process.env.FUZZ_VERBOSE) console.log(t.name, JSON.stringify([...(statuses.get(t.name) ?? new Map<number, number>())].sort()));
      // The campaign got past the parsers to the guard (401s) and past the guard to the routes (the
      // grid below checks each route outcome one by one: a random campaign of a few hundred cases
      // draws a 403 only a handful of times on Fastify, whose 415s stop many bodies first).
      if (HTTP_RUNS >= 200) {
        const seen = statuses.get(t.name) ?? new Map<number, number>();
        expect(seen.get(401) ?? 0, 'answers 401').toBeGreaterThan(0);
        const routed = [200, 403, 404, 500, 503].reduce((n, s) => n + (seen.get(s) ?? 0), 0);
        expect(routed, 'answers from the routes behind the guard').toBeGreaterThan(9);
      }
    },
    HTTP_TIMEOUT,
  );

  it.each(['GET', 'POST'])(
    '%s: every callback and route behaviour answers its status, as JSON, with no secret and no cookie',
    async (m) => {
      for (const row of GRID) {
        const status = await run(t, gridCase(row, m));
        expect([row.slice(0, 3).join(' '), status]).toEqual([row.slice(0, 3).join(' '), row[3]]);
      }
      await new Promise((r) => setTimeout(r, 20));
      expect(t.rejections).toEqual([]);
      expect(unhandled).toEqual([]);
    },
  );
});
