/**
 * Server nonces at the resource (RFC 9449 §9, `createAuth`'s `dpopNonce`): a proof without the
 * resource's nonce is refused with reason `dpop_nonce` and the nonce to use; with it, taken; a nonce
 * two slots old is refused again; every server sharing the secret takes the others' nonces. The
 * option is checked when the Auth is built, and its secret never appears in a problem.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ValidationError } from '../../src/errors';
import { MemoryTokenStore } from '../../src/stores';
import { testAuth, type TestAuth } from '../support/auth';
import { Clock } from '../support/clock';
import { dpopHeaders, newKey, type TestKey } from '../support/dpop';

const URL_ = 'https://api.example.com/api/x';
const secret = randomBytes(32);

async function boundToken(s: TestAuth, key: TestKey): Promise<string> {
  const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
  return (await s.auth.client(me).token.create({ name: 'bound', bindKey: key.publicJwk })).token;
}

async function send(s: TestAuth, key: TestKey, token: string, nonce?: string): Promise<unknown> {
  const iatSec = Math.floor(s.clock.ms / 1000);
  const headers = await dpopHeaders(key, token, { url: URL_, iatSec, ...(nonce === undefined ? {} : { nonce }) });
  return s.auth.authenticateRequest(new Request(URL_, { headers })).then(
    (p) => p.userId,
    (e: unknown) => e,
  );
}

const everyone = { orgs: { acme: 'editor' as const } };

describe('dpopNonce: a proof must carry the resource’s nonce', () => {
  it('without it: dpop_nonce with the nonce to use; with it: taken; two slots later: refused again with a new one', async () => {
    const s = await testAuth({ everyone, dpopNonce: { secret, lifetimeSec: 60 } });
    const key = await newKey();
    const token = await boundToken(s, key);
    const first = await send(s, key, token);
    expect(first).toBeInstanceOf(AuthenticationError);
    const refused = first as AuthenticationError;
    expect(refused.reason).toBe('dpop_nonce');
    expect(refused.dpopNonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await send(s, key, token, refused.dpopNonce)).toBe('alice');
    s.clock.advance(60_000);
    expect(await send(s, key, token, refused.dpopNonce)).toBe('alice'); // the slot before the current one
    s.clock.advance(60_000);
    const stale = (await send(s, key, token, refused.dpopNonce)) as AuthenticationError;
    expect(stale.reason).toBe('dpop_nonce');
    expect(stale.dpopNonce).not.toBe(refused.dpopNonce);
    expect(stale.message).not.toContain(refused.dpopNonce);
    expect(await send(s, key, token, stale.dpopNonce)).toBe('alice');
  });

  it('attack: a nonce made up by the client, or one of a resource with another secret, is refused', async () => {
    const s = await testAuth({ everyone, dpopNonce: { secret } });
    const foreign = await testAuth({ everyone, clock: s.clock, dpopNonce: { secret: randomBytes(32) } });
    const key = await newKey();
    const token = await boundToken(s, key);
    const theirs = ((await send(foreign, key, await boundToken(foreign, key))) as AuthenticationError).dpopNonce;
    for (const nonce of ['made-up', theirs as string]) {
      expect(await send(s, key, token, nonce)).toMatchObject({ reason: 'dpop_nonce' });
    }
  });

  it('every server given the same secret takes the nonce another handed out (one store, two Auths)', async () => {
    const clock = new Clock();
    const tokens = new MemoryTokenStore();
    const a = await testAuth({ everyone, clock, tokens, dpopNonce: { secret } });
    const b = await testAuth({ everyone, clock, tokens, dpopNonce: { secret: Uint8Array.from(secret) } });
    const key = await newKey();
    const token = await boundToken(a, key);
    const nonce = ((await send(a, key, token)) as AuthenticationError).dpopNonce;
    expect(await send(b, key, token, nonce)).toBe('alice');
  });

  it('a nonce changes nothing else: the proof is still checked, and a replay is still refused', async () => {
    const s = await testAuth({ everyone, dpopNonce: { secret } });
    const key = await newKey();
    const other = await newKey();
    const token = await boundToken(s, key);
    const nonce = ((await send(s, key, token)) as AuthenticationError).dpopNonce;
    expect(await send(s, other, token, nonce)).toMatchObject({ reason: 'dpop' });
    const headers = await dpopHeaders(key, token, { url: URL_, iatSec: Math.floor(s.clock.ms / 1000), nonce: nonce as string });
    expect((await s.auth.authenticateRequest(new Request(URL_, { headers }))).userId).toBe('alice');
    await expect(s.auth.authenticateRequest(new Request(URL_, { headers }))).rejects.toMatchObject({ reason: 'dpop' });
  });

  it('without dpopNonce a proof needs none, and one it carries is ignored', async () => {
    const s = await testAuth({ everyone });
    const key = await newKey();
    const token = await boundToken(s, key);
    expect(await send(s, key, token)).toBe('alice');
    expect(await send(s, key, token, 'anything')).toBe('alice');
  });
});

describe('dpopNonce is checked when the Auth is built', () => {
  const problems = async (dpopNonce: unknown): Promise<string[]> => {
    const err = await testAuth({ dpopNonce: dpopNonce as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => `${i.pathText}: ${i.message}`);
  };

  it.each([
    ['a short secret', { secret: 'too short to be a secret' }, /dpopNonce\.secret: .*32 to 1024 bytes \(got 24\)/],
    ['no secret', {}, /dpopNonce\.secret/],
    ['a secret of another type', { secret: 42 }, /dpopNonce\.secret/],
    ['a lifetime out of range', { secret, lifetimeSec: 5 }, /dpopNonce\.lifetimeSec: must be an integer from 10 to 3 600/],
    ['a misspelt key', { secret, lifetime: 60 }, /dpopNonce\.lifetime: unknown option/],
    ['not an object', 'secret', /dpopNonce: must be an object/],
  ])('%s is refused', async (_what, given, expected) => {
    expect((await problems(given)).join('\n')).toMatch(expected);
  });

  it('attack: a problem never quotes the secret', async () => {
    const text = 'hunter2-hunter2-hunter2';
    const err = (await testAuth({ dpopNonce: { secret: text, lifetimeSec: 1 } }).catch((e: unknown) => e)) as ValidationError;
    expect(err.message).not.toContain(text);
    expect(JSON.stringify(err.issues)).not.toContain(text);
  });

  it('the secret is copied: changing the caller’s bytes later changes no nonce', async () => {
    const bytes = Uint8Array.from(secret);
    const s = await testAuth({ everyone, dpopNonce: { secret: bytes } });
    const key = await newKey();
    const token = await boundToken(s, key);
    const nonce = ((await send(s, key, token)) as AuthenticationError).dpopNonce;
    bytes.fill(0);
    expect(await send(s, key, token, nonce)).toBe('alice');
  });
});
