import { createHmac, createPrivateKey, sign as nodeSign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ValidationError, type AuthenticationReason } from '../../src/errors';
import {
  generateKeyRing,
  mintToken,
  newTokenId,
  TokenVerifier,
  type KeyAlgorithm,
  type KeyRing,
  type TokenClaims,
  type TokenKind,
} from '../../src/tokens';
import { TOKEN_TYPES } from '../../src/tokens/claims';
import { NOW_SEC as NOW } from '../support/clock';
import { pathsOf } from '../support/errors';

const ISS = 'https://svc.test';
const HOUR = 3600;
const DAY = 86400;

function claims(over: Partial<TokenClaims> = {}): TokenClaims {
  return { kind: 'pat', iss: ISS, sub: 'u1', jti: newTokenId(), iat: NOW, exp: NOW + HOUR, ...over };
}

const enc = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Sign any header and payload with the ring's signing key, bypassing mintToken's checks. */
function forge(ring: KeyRing, header: unknown, payload: unknown): string {
  const jwk = ring.exportPrivate().keys[0]!;
  const input = `${enc(header)}.${enc(payload)}`;
  let sig: string;
  if (jwk.kty === 'oct') {
    sig = createHmac('sha256', Buffer.from(jwk.k!, 'base64url')).update(input).digest('base64url');
  } else {
    const { kid: _k, alg: _a, use: _u, ...material } = jwk;
    const key = createPrivateKey({ key: material as import('node:crypto').JsonWebKey, format: 'jwk' });
    const raw =
      jwk.kty === 'EC'
        ? nodeSign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
        : nodeSign(null, Buffer.from(input), key);
    sig = raw.toString('base64url');
  }
  return `${input}.${sig}`;
}

function headerOf(ring: KeyRing, over: Record<string, unknown> = {}): Record<string, unknown> {
  const jwk = ring.exportPrivate().keys[0]!;
  return { typ: TOKEN_TYPES.pat, alg: jwk.alg, kid: jwk.kid, ...over };
}

function payloadOf(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: ISS, sub: 'u1', jti: newTokenId(), iat: NOW, exp: NOW + HOUR, ...over };
}

async function setup(alg: KeyAlgorithm = 'EdDSA', opts: { cacheSize?: number } = {}) {
  const ring = await generateKeyRing({ alg });
  const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize: opts.cacheSize ?? 0 });
  return { ring, verifier };
}

async function reasonOf(p: Promise<unknown>): Promise<AuthenticationReason | 'accepted'> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    expect(err).toBeInstanceOf(AuthenticationError);
    return (err as AuthenticationError).reason;
  }
}

function replaceAt(s: string, i: number, c: string): string {
  return s.slice(0, i) + c + s.slice(i + 1);
}

function flipChar(c: string): string {
  return c === 'A' ? 'B' : 'A';
}

describe('TokenVerifier: accepted tokens', () => {
  it.each(['EdDSA', 'ES256', 'HS256'] as const)('T2: %s tokens round-trip', async (alg) => {
    const { ring, verifier } = await setup(alg);
    const c = claims();
    const out = await verifier.verify(await mintToken(ring, c), NOW + 1);
    expect(out).toEqual(c);
    expect(Object.isFrozen(out)).toBe(true);
  });

  it.each(['pat', 'session', 'component'] as const)('T1: a %s token verifies as its own kind', async (kind: TokenKind) => {
    const { ring, verifier } = await setup();
    const out = await verifier.verify(await mintToken(ring, claims({ kind })), NOW);
    expect(out.kind).toBe(kind);
  });

  it('T1: iat within the clock tolerance is accepted', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims({ iat: NOW + 5, exp: NOW + HOUR }));
    expect(await reasonOf(verifier.verify(token, NOW))).toBe('accepted');
  });

  it('T2: rotation keeps old tokens valid and signs new ones with the new key', async () => {
    const { ring, verifier } = await setup();
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    const old = await mintToken(ring, claims());
    await ring.rotate();
    const fresh = await mintToken(ring, claims());
    const newKid = ring.exportPrivate().keys[0]!.kid;
    expect(newKid).not.toBe(oldKid);
    expect(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid).toBe(newKid);
    expect(await reasonOf(verifier.verify(old, NOW))).toBe('accepted');
    expect(await reasonOf(verifier.verify(fresh, NOW))).toBe('accepted');
  });
});

describe('TokenVerifier: hostile tokens', () => {
  it.each(['none', 'None', 'NONE', 'nOnE'])('T2: alg %s is refused as a signature failure', async (alg) => {
    const { ring, verifier } = await setup();
    const unsigned = `${enc(headerOf(ring, { alg }))}.${enc(payloadOf())}.`;
    expect(await reasonOf(verifier.verify(unsigned, NOW))).toBe('signature');
    const withSig = forge(ring, headerOf(ring, { alg }), payloadOf());
    expect(await reasonOf(verifier.verify(withSig, NOW))).toBe('signature');
  });

  it('T2: HS256 signed with the EdDSA public key (algorithm confusion) is refused', async () => {
    const { ring, verifier } = await setup('EdDSA');
    const pub = ring.publicJwks().keys[0]!;
    const input = `${enc(headerOf(ring, { alg: 'HS256' }))}.${enc(payloadOf())}`;
    for (const secret of [Buffer.from(pub.x!, 'base64url'), Buffer.from(JSON.stringify(pub))]) {
      const sig = createHmac('sha256', secret).update(input).digest('base64url');
      expect(await reasonOf(verifier.verify(`${input}.${sig}`, NOW))).toBe('signature');
    }
  });

  it('T2: a token of another algorithm under a known kid is refused', async () => {
    const { ring, verifier } = await setup('HS256');
    const es = await generateKeyRing({ alg: 'ES256' });
    const kid = ring.exportPrivate().keys[0]!.kid!;
    const token = forge(es, headerOf(es, { kid }), payloadOf());
    expect(await reasonOf(verifier.verify(token, NOW))).toBe('signature');
  });

  it('T1: a changed character in the header, payload or signature is refused', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    const [h, p, s] = token.split('.') as [string, string, string];
    const header = `${replaceAt(h, 20, flipChar(h[20]!))}.${p}.${s}`;
    expect(await reasonOf(verifier.verify(header, NOW))).not.toBe('accepted');
    const payload = `${h}.${replaceAt(p, 10, flipChar(p[10]!))}.${s}`;
    expect(await reasonOf(verifier.verify(payload, NOW))).toBe('signature');
    const sig = `${h}.${p}.${replaceAt(s, 30, flipChar(s[30]!))}`;
    expect(await reasonOf(verifier.verify(sig, NOW))).toBe('signature');
  });

  it('T1: any single changed character anywhere is refused (property)', async () => {
    const { ring, verifier } = await setup('HS256');
    const token = await mintToken(ring, claims());
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...alphabet), async (i, c) => {
        fc.pre(token[i] !== c);
        expect(await reasonOf(verifier.verify(replaceAt(token, i, c), NOW))).not.toBe('accepted');
      }),
      { numRuns: 300 },
    );
  });

  it('T2: a non-canonical spelling of the signature is refused as malformed', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    const B64U = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = B64U.indexOf(token.at(-1)!);
    const variant = token.slice(0, -1) + B64U[last | 1]!;
    expect(Buffer.from(variant.split('.')[2]!, 'base64url')).toEqual(Buffer.from(token.split('.')[2]!, 'base64url'));
    expect(await reasonOf(verifier.verify(variant, NOW))).toBe('malformed');
  });

  it.each([
    ['two segments', (t: string) => t.split('.').slice(0, 2).join('.')],
    ['four segments', (t: string) => `${t}.${t.split('.')[2]!}`],
    ['empty string', () => ''],
    ['spaces', (t: string) => ` ${t}`],
    ['padding', (t: string) => `${t}==`],
  ])('T1: %s is malformed', async (_name, mutate) => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    expect(await reasonOf(verifier.verify(mutate(token), NOW))).toBe('malformed');
  });

  it.each([undefined, null, 42, {}, ['a.b.c'], Buffer.from('a.b.c')])('T1: a non-string token (%s) is malformed', async (value) => {
    const { verifier } = await setup();
    expect(await reasonOf(verifier.verify(value, NOW))).toBe('malformed');
  });

  it('T1: a 10 MB token is refused as malformed before any crypto', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    const huge = token + 'A'.repeat(10 * 1024 * 1024);
    const spy = vi.spyOn(crypto.subtle, 'verify');
    try {
      expect(await reasonOf(verifier.verify(huge, NOW))).toBe('malformed');
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it.each([
    ['JWT', 'type'],
    ['svc-pat+JWT', 'type'],
    ['application/svc-pat+jwt', 'type'],
    [42, 'type'],
  ] as const)('T1: typ %s is refused as %s', async (typ, reason) => {
    const { ring, verifier } = await setup();
    expect(await reasonOf(verifier.verify(forge(ring, headerOf(ring, { typ }), payloadOf()), NOW))).toBe(reason);
  });

  it('T1: a header without typ is refused as type', async () => {
    const { ring, verifier } = await setup();
    const { typ: _t, ...header } = headerOf(ring);
    expect(await reasonOf(verifier.verify(forge(ring, header, payloadOf()), NOW))).toBe('type');
  });

  it.each(['unknownkid', '../../etc/passwd', 'a/b', '', 'x'.repeat(65), 'kid with space'])(
    'T2: unknown or path-like kid %j is a signature failure',
    async (kid) => {
      const { ring, verifier } = await setup();
      expect(await reasonOf(verifier.verify(forge(ring, headerOf(ring, { kid }), payloadOf()), NOW))).toBe('signature');
    },
  );

  it.each([
    ['jku', { jku: 'https://evil.test/jwks' }],
    ['jwk', { jwk: { kty: 'oct', k: 'AAAA' } }],
    ['crit', { crit: ['b64'], b64: false }],
    ['missing kid', { kid: undefined }],
  ])('T1: header member %s makes the token malformed', async (_name, extra) => {
    const { ring, verifier } = await setup();
    expect(await reasonOf(verifier.verify(forge(ring, headerOf(ring, extra), payloadOf()), NOW))).toBe('malformed');
  });

  it.each([
    ['missing exp', { exp: undefined }],
    ['missing iat', { iat: undefined }],
    ['missing jti', { jti: undefined }],
    ['missing sub', { sub: undefined }],
    ['missing iss', { iss: undefined }],
    ['string exp', { exp: String(NOW + HOUR) }],
    ['fractional iat', { iat: NOW + 0.5 }],
    ['numeric sub', { sub: 42 }],
    ['empty jti', { jti: '' }],
    ['extra scopes claim', { scopes: [{ permissions: ['repo:admin'] }] }],
    ['extra nbf claim', { nbf: NOW }],
    ['exp before iat', { iat: NOW + 10, exp: NOW + 5 }],
    ['exp far in the future', { exp: NOW + 366 * DAY }],
    ['iat in the future beyond tolerance', { iat: NOW + 6, exp: NOW + HOUR }],
  ])('T1: %s is malformed', async (_name, over) => {
    const { ring, verifier } = await setup();
    expect(await reasonOf(verifier.verify(forge(ring, headerOf(ring), payloadOf(over)), NOW))).toBe('malformed');
  });

  it('T1: a payload that is not a JSON object is malformed', async () => {
    const { ring, verifier } = await setup();
    for (const payload of ['[1,2]', '"x"', 'not json', 'null']) {
      expect(await reasonOf(verifier.verify(forge(ring, headerOf(ring), payload), NOW))).toBe('malformed');
    }
  });

  it('T1: a lifetime within the PAT maximum but above the session maximum is malformed for a session', async () => {
    const { ring, verifier } = await setup();
    const exp = NOW + 31 * DAY;
    expect(await reasonOf(verifier.verify(await mintToken(ring, claims({ kind: 'pat', exp })), NOW))).toBe('accepted');
    expect(await reasonOf(verifier.verify(await mintToken(ring, claims({ kind: 'session', exp })), NOW))).toBe('malformed');
  });

  it('T1: maxLifetimeSec tightens a kind', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS, maxLifetimeSec: { pat: HOUR } });
    expect(await reasonOf(verifier.verify(await mintToken(ring, claims({ exp: NOW + HOUR })), NOW))).toBe('accepted');
    expect(await reasonOf(verifier.verify(await mintToken(ring, claims({ exp: NOW + HOUR + 1 })), NOW))).toBe('malformed');
  });

  it('T1: a token from another issuer is a signature failure', async () => {
    const { ring, verifier } = await setup();
    expect(await reasonOf(verifier.verify(await mintToken(ring, claims({ iss: 'https://other.test' })), NOW))).toBe('signature');
  });

  it('T2: a token from another key ring is a signature failure', async () => {
    const { verifier } = await setup();
    const other = await generateKeyRing();
    expect(await reasonOf(verifier.verify(await mintToken(other, claims()), NOW))).toBe('signature');
  });

  it('T2: a token whose kid names our key but was signed by another key is a signature failure', async () => {
    const { ring, verifier } = await setup();
    const other = await generateKeyRing();
    const token = forge(other, headerOf(ring), payloadOf());
    expect(await reasonOf(verifier.verify(token, NOW))).toBe('signature');
  });

  it('T2: a token signed by a retired key is a signature failure', async () => {
    const { ring, verifier } = await setup();
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    const old = await mintToken(ring, claims());
    await ring.rotate();
    ring.retire(oldKid);
    expect(await reasonOf(verifier.verify(old, NOW))).toBe('signature');
  });

  it('T1: expired at exp exactly, valid a second before', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims({ exp: NOW + 100 }));
    expect(await reasonOf(verifier.verify(token, NOW + 99))).toBe('accepted');
    expect(await reasonOf(verifier.verify(token, NOW + 100))).toBe('expired');
    expect(await reasonOf(verifier.verify(token, NOW + 10 * DAY))).toBe('expired');
  });
});

describe('TokenVerifier: misuse', () => {
  it('T1: a bad nowSec is a ValidationError, not an authentication failure', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    for (const now of [Number.NaN, Infinity, '1700000000' as unknown as number]) {
      const err = await verifier.verify(token, now).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]!.pathText).toBe('nowSec');
    }
  });

  it.each([
    ['ring', { ring: { publicJwks: () => ({ keys: [] }) } }],
    ['issuer', { issuer: '' }],
    ['clockToleranceSec', { clockToleranceSec: -1 }],
    ['clockToleranceSec', { clockToleranceSec: 1.5 }],
    ['cacheSize', { cacheSize: -1 }],
    ['maxLifetimeSec.pat', { maxLifetimeSec: { pat: 0 } }],
    ['maxLifetimeSec.admin', { maxLifetimeSec: { admin: 10 } }],
    ['cache', { cache: true }],
  ])('T1: a bad option %s fails at construction', async (path, over) => {
    const ring = await generateKeyRing();
    const build = () => new TokenVerifier({ ring, issuer: ISS, ...over } as never);
    expect(build).toThrow(ValidationError);
    expect(pathsOf(build)).toContain(path);
  });

  it('T1: options that are not an object fail at construction', () => {
    expect(() => new TokenVerifier(undefined as never)).toThrow(ValidationError);
  });
});
