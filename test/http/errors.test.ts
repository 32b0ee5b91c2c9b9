import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  SvcAuthError,
  UnavailableError,
  ValidationError,
} from '../../src/errors';
import type { Decision } from '../../src/core/policy';

// The decisions authorize returns, as data (the answers read nothing else of them).
const ALLOW: Decision = { allowed: true };
const DENY_INVALID: Decision = { allowed: false, reason: 'invalid' };
const DENY_ROLE: Decision = { allowed: false, reason: 'role' };
const DENY_SCOPE: Decision = { allowed: false, reason: 'scope' };
const DENY_THING: Decision = { allowed: false, reason: 'thing' };
import { decisionError, errorAnswer } from '../../src/http';
import { AUTH_REASONS } from '../support/reasons';

const TOKEN = 'eyJhbGciOiJFZERTQSIsInR5cCI6InBhdCtqd3QifQ.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlc2lnbmF0dXJl';
const REALM = 'Bearer realm="svc"';

function expectJsonNoStore(headers: Record<string, string>): void {
  expect(headers['content-type']).toMatch(/^application\/json/);
  expect(headers['cache-control']).toBe('no-store');
}

describe('H2: errorAnswer maps each error to its status and challenge', () => {
  it('H2: a missing credential is 401 with a bare Bearer challenge', () => {
    const a = errorAnswer(new AuthenticationError('missing'));
    expect(a.status).toBe(401);
    expect(a.headers['www-authenticate']).toBe(REALM);
    expect(a.body).toMatchObject({ error: 'authentication', reason: 'missing' });
    expectJsonNoStore(a.headers);
  });

  const invalid = AUTH_REASONS.filter((r) => r !== 'missing' && r !== 'dpop' && r !== 'bound' && r !== 'dpop_nonce');
  const DPOP_ERROR = { dpop: 'invalid_dpop_proof', bound: 'invalid_token', dpop_nonce: 'use_dpop_nonce' } as const;

  it.each(['dpop', 'bound', 'dpop_nonce'] as const)(
    'H2: AuthenticationError %s is 401 with the DPoP challenge and its algorithms (RFC 9449 §7.1, §9)',
    (reason) => {
      const a = errorAnswer(new AuthenticationError(reason));
      expect(a.status).toBe(401);
      const error = DPOP_ERROR[reason];
      expect(a.headers['www-authenticate']).toMatch(
        new RegExp(`^DPoP realm="svc", algs="EdDSA ES256 ES384 PS256 RS256", error="${error}", error_description="[^"\\\\]+"$`),
      );
      expect(errorAnswer(new AuthenticationError(reason), { realm: 'api' }).headers['www-authenticate']).toMatch(
        /^DPoP realm="api", algs=/,
      );
      expect(a.body.reason).toBe(reason);
    },
  );
  it('RFC 9449 §9: use_dpop_nonce carries the nonce to sign with in DPoP-Nonce, kept when re-realmed', () => {
    const err = new AuthenticationError('dpop_nonce', undefined, { dpopNonce: 'n0nce_-ABC' });
    const a = errorAnswer(err);
    expect(a.headers['dpop-nonce']).toBe('n0nce_-ABC');
    expect(a.headers['www-authenticate']).toContain('error="use_dpop_nonce"');
    expect(errorAnswer(a, { realm: 'api' }).headers['dpop-nonce']).toBe('n0nce_-ABC');
    // Only for that reason: another refusal built with a nonce sends none.
    expect(errorAnswer(new AuthenticationError('dpop', undefined, { dpopNonce: 'x' })).headers['dpop-nonce']).toBeUndefined();
  });

  it.each([
    ['a header split', 'abc\r\nset-cookie: a=b'],
    ['a quote', 'a"b'],
    ['a space', 'a b'],
    ['too long a value', 'a'.repeat(257)],
    ['an empty value', ''],
  ])('header injection: a nonce built by hand with %s is not sent', (_what, nonce) => {
    const a = errorAnswer(new AuthenticationError('dpop_nonce', undefined, { dpopNonce: nonce }));
    expect(a.status).toBe(401);
    expect(a.headers['dpop-nonce']).toBeUndefined();
  });

  it.each(invalid)('H2: AuthenticationError %s is 401 invalid_token', (reason) => {
    const a = errorAnswer(new AuthenticationError(reason));
    expect(a.status).toBe(401);
    const challenge = a.headers['www-authenticate'] ?? '';
    expect(challenge.startsWith(`${REALM}, error="invalid_token", error_description="`)).toBe(true);
    // The description is a plain quoted-string: no quote, backslash or control character inside.
    expect(challenge).toMatch(/error_description="[^"\\\x00-\x1f]+"$/);
    expect(a.body.error).toBe('authentication');
    expect(a.body.reason).toBe(reason);
    expectJsonNoStore(a.headers);
  });

  it.each([
    ['ForbiddenError', new ForbiddenError('component tokens cannot manage tokens'), 403, 'forbidden'],
    ['ValidationError', new ValidationError([{ path: '[0].resource', message: 'bad' }]), 400, 'validation'],
    ['NotFoundError', new NotFoundError(), 404, 'not_found'],
    ['ConflictError', new ConflictError(), 409, 'conflict'],
    ['UnavailableError', new UnavailableError(), 503, 'unavailable'],
  ] as const)('H2: %s -> %i', (_name, err, status, code) => {
    const a = errorAnswer(err);
    expect(a.status).toBe(status);
    expect(a.body.error).toBe(code);
    expect(typeof a.body.message).toBe('string');
    expectJsonNoStore(a.headers);
  });

  it('H2: ForbiddenError carries insufficient_scope', () => {
    expect(errorAnswer(new ForbiddenError()).headers['www-authenticate']).toBe(`${REALM}, error="insufficient_scope"`);
  });

  it('H2: only 401 and 403 carry a challenge', () => {
    for (const err of [new ValidationError('x'), new NotFoundError(), new ConflictError(), new UnavailableError(), new Error('x')]) {
      expect(errorAnswer(err).headers['www-authenticate']).toBeUndefined();
    }
  });

  it('H2: ValidationError lists its issues in the body', () => {
    const a = errorAnswer(
      new ValidationError([
        { path: '[0].permissions[1]', message: 'unknown' },
        { path: 'name', message: 'x' },
      ]),
    );
    expect(a.body.issues?.map((i) => i.pathText)).toEqual(['[0].permissions[1]', 'name']);
  });

  it('issues over HTTP have the shape of ValidationError.issues: code, path array, pathText, message (was: path as text, no code)', () => {
    const err = new ValidationError([
      { code: 'invalid_value', path: [0, 'permissions', 1], message: 'unknown permission' },
      { path: 'name', message: 'x' },
    ]);
    const a = errorAnswer(err);
    expect(a.body.issues).toEqual(err.issues.map((i) => ({ code: i.code, path: [...i.path], pathText: i.pathText, message: i.message })));
    expect(a.body.issues?.[0]).toEqual({
      code: 'invalid_value',
      path: [0, 'permissions', 1],
      pathText: '[0].permissions[1]',
      message: 'unknown permission',
    });
    // The JSON text carries the same shape.
    expect(JSON.parse(JSON.stringify(a.body)).issues[1]).toEqual({ code: 'custom', path: ['name'], pathText: 'name', message: 'x' });
  });

  it('H2 attack: a hand-made issue code outside the closed set, or a token in a path segment, is not echoed', () => {
    const err = new ValidationError([{ code: TOKEN as never, path: ['a', TOKEN], message: 'm' }]);
    const a = errorAnswer(err);
    expect(a.body.issues?.[0]?.code).toBe('custom');
    expect(JSON.stringify(a)).not.toContain(TOKEN);
  });

  it('H2 attack: a huge message or issue list is capped in the answer', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ path: `[${i}]`, message: 'eyJ'.repeat(100_000) }));
    const a = errorAnswer(new ValidationError(many));
    expect(a.body.issues).toHaveLength(100);
    expect(a.body.message.length).toBeLessThanOrEqual(1025);
    expect(a.body.issues?.[0]?.message.length).toBeLessThanOrEqual(1025);
  });

  it('H2: UnavailableError says Retry-After: 1', () => {
    expect(errorAnswer(new UnavailableError()).headers['retry-after']).toBe('1');
  });

  it('H2: a bare SvcAuthError is mapped by its code', () => {
    expect(errorAnswer(new SvcAuthError('conflict', 'c')).status).toBe(409);
    expect(errorAnswer(new SvcAuthError('authentication', 'a')).status).toBe(401);
  });

  it.each([
    ['Error', new Error('x')],
    ['TypeError', new TypeError('x')],
    ['a string', 'x'],
    ['undefined', undefined],
    ['null', null],
    ['an object with code', { code: 'not_found', message: 'x' }],
    ['an Error with code validation', Object.assign(new Error('x'), { code: 'validation' })],
  ])('H2: %s (not ours) -> 500 internal', (_name, err) => {
    const a = errorAnswer(err);
    expect(a.status).toBe(500);
    expect(a.body).toEqual({ error: 'internal', message: 'internal error' });
    expectJsonNoStore(a.headers);
  });
});

describe('H2 attack: no token value or stack ever reaches an answer', () => {
  it('H2 attack: an error that is not ours, holding a token in its message, answers generically', () => {
    const err = new Error(`database said: bad value ${TOKEN}`);
    const text = JSON.stringify(errorAnswer(err));
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('database');
    expect(text).not.toContain('at ');
  });

  it('H2 attack: a token inside our own error message or issues is redacted', () => {
    for (const err of [
      new NotFoundError(`no token ${TOKEN}`),
      new ConflictError(`clash ${TOKEN}`),
      new ForbiddenError(`refused ${TOKEN}`),
      new UnavailableError(`down ${TOKEN}`),
      new ValidationError([{ path: TOKEN, message: `bad ${TOKEN}` }]),
      new AuthenticationError('signature', `bad signature on ${TOKEN}`),
      new AuthenticationError('missing', TOKEN),
    ]) {
      const a = errorAnswer(err);
      expect(JSON.stringify(a)).not.toContain(TOKEN);
      expect(JSON.stringify(a)).not.toContain('eyJ');
    }
  });

  it('H2 attack: the stack never appears', () => {
    const err = new NotFoundError('gone');
    const text = JSON.stringify(errorAnswer(err));
    expect(err.stack).toBeTruthy();
    expect(text).not.toContain('stack');
    expect(text).not.toContain(String(err.stack).split('\n')[1]?.trim());
  });

  it('H2 attack: an error object with throwing getters still answers 500', () => {
    const hostile = new Proxy(new Error('x'), {
      get() {
        throw new Error(TOKEN);
      },
      getPrototypeOf() {
        throw new Error(TOKEN);
      },
    });
    const a = errorAnswer(hostile);
    expect(a.status).toBe(500);
    expect(JSON.stringify(a)).not.toContain(TOKEN);
  });

  it('H2 attack: an AuthenticationError with a forged reason falls back to malformed', () => {
    const err = new AuthenticationError('expired');
    Object.defineProperty(err, 'reason', { value: 'x", error="none' });
    const a = errorAnswer(err);
    expect(a.status).toBe(401);
    expect(a.body.reason).toBe('malformed');
    expect(a.headers['www-authenticate']).not.toContain('none');
  });

  it('H2 property: no answer ever shows a JWT-shaped string from any of our messages', () => {
    const jwtish = fc
      .tuple(fc.base64String({ minLength: 4 }), fc.base64String(), fc.base64String())
      .map(([a, b, c]) => `eyJ${a}.${b}.${c}`.replace(/[+/=]/g, '_'));
    fc.assert(
      fc.property(fc.string(), jwtish, fc.string(), (before, jwt, after) => {
        const msg = `${before}${jwt} ${after}`;
        for (const err of [new NotFoundError(msg), new ValidationError([{ path: msg, message: msg }]), new Error(msg)]) {
          expect(JSON.stringify(errorAnswer(err).body)).not.toContain(jwt);
        }
      }),
    );
  });
});

describe('H2: decisionError maps denials', () => {
  it("H2: reason 'invalid' is 400 validation", () => {
    const a = decisionError(DENY_INVALID);
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: 'validation', reason: 'invalid' });
    expect(a.headers['www-authenticate']).toBeUndefined();
    expectJsonNoStore(a.headers);
  });

  it.each([DENY_ROLE, DENY_SCOPE, DENY_THING])('H2: %j is 403 insufficient_scope with the reason', (d) => {
    const a = decisionError(d);
    expect(a.status).toBe(403);
    expect(a.headers['www-authenticate']).toBe(`${REALM}, error="insufficient_scope"`);
    expect(a.body).toMatchObject({ error: 'forbidden', reason: (d as { reason: string }).reason });
    expectJsonNoStore(a.headers);
  });

  it('H2: an allowing decision is a ValidationError (nothing to refuse)', () => {
    expect(() => decisionError(ALLOW)).toThrow(ValidationError);
  });

  it.each([
    ['an unknown reason', { allowed: false, reason: 'weird' }],
    ['no reason', { allowed: false }],
    ['allowed as a string', { allowed: 'true' }],
    ['null', null],
    ['a reason named like a prototype key', { allowed: false, reason: 'toString' }],
  ])('H2: %s fails closed as 403', (_name, d) => {
    const a = decisionError(d as unknown as Decision);
    expect(a.status).toBe(403);
    expect(a.body.error).toBe('forbidden');
  });
});

describe('answers built by this module pass through errorAnswer', () => {
  it('H2: errorAnswer(decisionError(d)) is the decision answer itself (403 insufficient_scope, 400 invalid)', () => {
    const denied = decisionError(DENY_SCOPE);
    expect(errorAnswer(denied)).toBe(denied);
    expect(errorAnswer(denied).status).toBe(403);
    expect(errorAnswer(decisionError(DENY_INVALID)).status).toBe(400);
  });

  it('H2 forged answer: a look-alike { status, headers, body } object is not ours and gets the generic 500', () => {
    const forged = { status: 200, headers: { 'set-cookie': 'x=1' }, body: { error: 'ok', message: 'fine' } };
    const got = errorAnswer(forged);
    expect(got.status).toBe(500);
    expect(got.headers['set-cookie']).toBeUndefined();
    expect(got.body.error).toBe('internal');
  });
});
