/**
 * The error answer's body is typed by what is sent: `error` the closed code union (or `internal`),
 * `reason` one exported union, `status` the statuses the answers use. The lists below are tied to
 * those types (a type test fails when either side gains a member), and every answer the mapping and
 * the fetch guard and the leak endpoint give, for every error kind and every reason, is checked against
 * them at run time.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnavailableError,
  ValidationError,
  createAuth,
  decisionError,
  generateKeyRing,
  errorAnswer,
  withAuth,
  type AuthenticationReason,
  type Decision,
  type ErrorCode,
  type ForbiddenReason,
  type ErrorAnswer,
  type ErrorAnswerBody,
  type ErrorAnswerReason,
} from 'svc-auth';
import { credentialRevocationHandler } from 'svc-auth/leaks';
import { AUTH_REASONS } from '../support/reasons';

const CODES = ['validation', 'authentication', 'forbidden', 'not_found', 'conflict', 'unavailable', 'internal'] as const;
const DENY_REASONS = ['invalid', 'role', 'policy', 'scope', 'thing'] as const;
const OTHER_REASONS = ['ip', 'rate_limited'] as const;
const REASONS: readonly string[] = [...AUTH_REASONS, ...DENY_REASONS, ...OTHER_REASONS];
// The statuses of each code: the mapping's, and the endpoints' own (405, 413, 415, 429).
const STATUSES_OF: Record<(typeof CODES)[number], readonly number[]> = {
  validation: [400, 405, 413, 415],
  authentication: [401],
  forbidden: [403],
  not_found: [404],
  conflict: [409],
  unavailable: [503, 429],
  internal: [500],
};

type Deny = Extract<Decision, { allowed: false }>['reason'];

/** What every answer must be: a code of the union, its status, a reason of the union or none. */
function expectTyped(a: ErrorAnswer): void {
  const body: unknown = JSON.parse(JSON.stringify(a.body));
  const { error, reason } = body as { error: unknown; reason?: unknown };
  expect(CODES).toContain(error);
  expect(STATUSES_OF[error as (typeof CODES)[number]]).toContain(a.status);
  if (reason !== undefined) expect(REASONS).toContain(reason);
}

describe('the error answer body is typed by what is sent', () => {
  it('types: error is the closed code union plus internal, reason the exported union, status the statuses sent', () => {
    expectTypeOf<ErrorAnswerBody['error']>().toEqualTypeOf<ErrorCode | 'internal'>();
    expectTypeOf<(typeof CODES)[number]>().toEqualTypeOf<ErrorAnswerBody['error']>();
    expectTypeOf<(typeof AUTH_REASONS)[number]>().toEqualTypeOf<AuthenticationReason>();
    expectTypeOf<(typeof DENY_REASONS)[number]>().toEqualTypeOf<Deny>();
    expectTypeOf<ErrorAnswerReason>().toEqualTypeOf<AuthenticationReason | Deny | ForbiddenReason | (typeof OTHER_REASONS)[1]>();
    expectTypeOf<(typeof OTHER_REASONS)[0] | 'policy'>().toEqualTypeOf<ForbiddenReason>();
    expectTypeOf<ErrorAnswerBody['reason']>().toEqualTypeOf<ErrorAnswerReason | undefined>();
    expectTypeOf<400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 599>().toExtend<ErrorAnswer['status']>();
    expectTypeOf<200>().not.toExtend<ErrorAnswer['status']>();
    expectTypeOf<402 | 418 | 422>().not.toExtend<ErrorAnswer['status']>();
    expectTypeOf<600>().not.toExtend<ErrorAnswer['status']>();
    expectTypeOf<number>().not.toExtend<ErrorAnswer['status']>();
  });

  it('every error kind and every reason maps to a typed answer', () => {
    const errors: unknown[] = [
      ...AUTH_REASONS.map((r) => new AuthenticationError(r)),
      new ForbiddenError('no'),
      new ForbiddenError('elsewhere', { reason: 'ip' }),
      new ValidationError([{ path: 'name', message: 'is required' }]),
      new NotFoundError('no such token'),
      new ConflictError('taken'),
      new UnavailableError('store down'),
      new Error('a password in a driver message'),
      undefined,
      { status: 200, body: { error: 'teapot', reason: 'look-alike' } },
    ];
    for (const err of errors) expectTyped(errorAnswer(err));
    for (const reason of DENY_REASONS) expectTyped(decisionError({ allowed: false, reason }));
    // A decision that is not one of ours still fails closed, with a typed answer.
    expectTyped(decisionError({ allowed: false, reason: 'made-up' } as unknown as Decision));
    expect(errorAnswer(new ForbiddenError('elsewhere', { reason: 'ip' })).body.reason).toBe('ip');
  });

  it('the fetch guard sends typed bodies for each refusal and each error a handler throws', async () => {
    const auth = createAuth({
      issuer: 'https://svc.example',
      keys: await generateKeyRing(),
      members: { rolesOf: () => ({ orgs: { acme: 'viewer' } }) },
    });
    const session = await auth.issueSession('alice');
    const me = await auth.authenticate(session);
    const ipBound = (await auth.client(me).token.create({ name: 'ci', allowedIps: ['203.0.113.0/24'] })).token;
    const revoked = (await auth.client(me).token.create({ name: 'old' })).token;
    await auth.client(me).token.revoke('old');
    const throws: Record<string, unknown> = {
      '/validation': new ValidationError([{ path: 'q', message: 'is required' }]),
      '/not-found': new NotFoundError('no such thing'),
      '/conflict': new ConflictError('taken'),
      '/unavailable': new UnavailableError('store down'),
      '/internal': new Error('boom'),
    };
    const guard = withAuth(
      auth,
      (req) => {
        throw throws[new URL(req.url).pathname];
      },
      { permission: 'repo:write', resource: (req) => (new URL(req.url).pathname === '/write' ? 'acme/web' : 'acme/read') },
    );
    const read = withAuth(
      auth,
      (req) => {
        throw throws[new URL(req.url).pathname];
      },
      { permission: 'repo:read', resource: () => 'acme/web' },
    );
    const ask = (handler: typeof guard, path: string, token?: string): Promise<Response> =>
      handler(new Request(`http://127.0.0.1${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }));
    const sent: [number, unknown][] = [];
    const record = async (res: Response): Promise<void> => {
      sent.push([res.status, await res.json()]);
    };
    await record(await ask(guard, '/write'));
    await record(await ask(guard, '/write', 'not-a-token'));
    await record(await ask(guard, '/write', revoked));
    await record(await ask(guard, '/write', ipBound));
    await record(await ask(guard, '/write', session));
    for (const path of Object.keys(throws)) await record(await ask(read, path, session));

    expect(sent.map(([status, body]) => [status, (body as ErrorAnswerBody).error, (body as ErrorAnswerBody).reason])).toEqual([
      [401, 'authentication', 'missing'],
      [401, 'authentication', 'malformed'],
      [401, 'authentication', 'revoked'],
      [403, 'forbidden', 'ip'],
      [403, 'forbidden', 'role'],
      [400, 'validation', undefined],
      [404, 'not_found', undefined],
      [409, 'conflict', undefined],
      [503, 'unavailable', undefined],
      [500, 'internal', undefined],
    ]);
    for (const [status, body] of sent) expectTyped({ status: status as ErrorAnswer['status'], headers: {}, body: body as ErrorAnswerBody });
  });

  it('the leak endpoint sends typed bodies for its own statuses (405, 413, 415, 429)', async () => {
    const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
    const handler = credentialRevocationHandler(auth, { maxBodyBytes: 64, rateLimit: { requests: 2 } });
    const post = (body: string, type = 'application/json'): Request =>
      new Request('http://127.0.0.1/revoke', { method: 'POST', headers: { 'content-type': type }, body });
    const answers = [
      await handler.fetch(new Request('http://127.0.0.1/revoke')),
      await handler.fetch(post('[]', 'text/plain')),
      await handler.fetch(post(JSON.stringify([{ token: 'x'.repeat(100) }]))),
      await handler.fetch(post('[]')), // the third POST from one address: over the limit of 2
    ];
    const sent: [number, ErrorAnswerBody][] = [];
    for (const res of answers) if (res.status >= 400) sent.push([res.status, (await res.json()) as ErrorAnswerBody]);
    expect(sent.map(([status, body]) => [status, body.error, body.reason])).toEqual([
      [405, 'validation', undefined],
      [415, 'validation', undefined],
      [413, 'validation', undefined],
      [429, 'unavailable', 'rate_limited'],
    ]);
    for (const [status, body] of sent) expectTyped({ status: status as ErrorAnswer['status'], headers: {}, body });
  });
});
