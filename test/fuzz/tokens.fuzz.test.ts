/** Fuzz: authenticate, the bearer header (authenticateRequest) and importKeyRing. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, generateKeyRing, importKeyRing } from '../../src/index';
import { expectNoPollution, hostileString, PARAMS, TIMEOUT, typedOrValueAsync } from './harness';
import { testAuth } from '../support/auth';

async function world() {
  const keys = await generateKeyRing();
  const { auth } = await testAuth({ issuer: 'https://fuzz.test', keys, everyone: { orgs: { acme: 'owner' } } });
  const session = await auth.issueSession('alice');
  const { token } = await auth.client(await auth.authenticate(session)).token.create({ name: 'ci' });
  return { auth, keys, token, session };
}

const b64uChar = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'.split(''),
  '=',
  '+',
  '/',
  ' ',
  '\u0000',
);

/** A real token with characters replaced, inserted or deleted, or segments swapped. */
function mutated(token: string): fc.Arbitrary<string> {
  const edit = fc.record({
    at: fc.nat({ max: token.length }),
    len: fc.nat({ max: 3 }),
    insert: fc.array(b64uChar, { maxLength: 3 }).map((a) => a.join('')),
  });
  return fc
    .oneof(
      fc
        .array(edit, { minLength: 1, maxLength: 3 })
        .map((edits) => edits.reduce((t, e) => t.slice(0, e.at) + e.insert + t.slice(e.at + e.len), token)),
      fc.constantFrom(token.split('.').reverse().join('.'), `${token}.`, `.${token}`, `${token}${token}`, token.toUpperCase()),
    )
    .filter((t) => t !== token);
}

describe('fuzz: tokens', () => {
  it(
    'authenticate: arbitrary input is refused with AuthenticationError (or a typed error), never a TypeError',
    async () => {
      const { auth } = await world();
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileString, fc.anything(), fc.string({ unit: 'binary', maxLength: 9000 })), async (input) => {
          const r = await typedOrValueAsync(() => auth.authenticate(input as string));
          expect(r).toBeInstanceOf(Error);
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'authenticate: no edit of a real token is accepted',
    async () => {
      const { auth, token } = await world();
      await fc.assert(
        fc.asyncProperty(mutated(token), async (t) => {
          const r = await typedOrValueAsync(() => auth.authenticate(t));
          expect(r).toBeInstanceOf(AuthenticationError);
        }),
        PARAMS,
      );
      expect((await auth.authenticate(token)).kind).toBe('pat');
    },
    TIMEOUT,
  );

  it(
    'bearer header: arbitrary Authorization values on node and fetch requests are refused with AuthenticationError',
    async () => {
      const { auth, token } = await world();
      const header = fc.oneof(
        hostileString,
        fc.anything(),
        mutated(token).map((t) => `Bearer ${t}`),
        fc
          .tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Bearer\t', ''), fc.string({ unit: 'binary', maxLength: 9000 }))
          .map(([s, v]) => `${s} ${v}`),
        fc.array(fc.constant(`Bearer ${token}`), { minLength: 2, maxLength: 3 }),
      );
      await fc.assert(
        fc.asyncProperty(header, async (value) => {
          const node = { headers: { authorization: value }, method: 'GET', url: '/' };
          const r = await typedOrValueAsync(() => auth.authenticateRequest(node as never));
          expect(r).toBeInstanceOf(AuthenticationError);
          if (typeof value === 'string') {
            let req: Request | undefined;
            try {
              req = new Request('http://x/', { headers: { authorization: value } });
            } catch {
              req = undefined; // not a legal header value: fetch itself refuses it
            }
            if (req) expect(await typedOrValueAsync(() => auth.authenticateRequest(req))).toBeInstanceOf(AuthenticationError);
          }
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'importKeyRing: arbitrary key sets give a ring or a ValidationError',
    async () => {
      const { keys } = await world();
      const real = keys.exportPrivate().keys[0]!;
      const jwkLike = fc.oneof(
        fc.anything(),
        fc.record(
          {
            kty: fc.constantFrom('OKP', 'EC', 'oct', 'RSA', '__proto__'),
            kid: hostileString,
            crv: hostileString,
            x: hostileString,
            d: hostileString,
            k: hostileString,
          },
          { requiredKeys: [] },
        ),
        fc
          .record({ field: fc.constantFrom('kty', 'kid', 'crv', 'x', 'd', 'alg', 'use', 'key_ops', '__proto__'), value: fc.anything() })
          .map(({ field, value }) => ({ ...real, [field]: value })),
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.anything(), fc.record({ keys: fc.array(jwkLike, { maxLength: 3 }) })), async (input) => {
          const r = await typedOrValueAsync(() => importKeyRing(input as never));
          if (r instanceof Error) expect(r.code).toBe('validation');
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );
});
