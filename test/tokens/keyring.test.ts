import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { newTokenId, mintToken, type KeyAlgorithm, type KeyRing, TokenVerifier } from '../../src/tokens';
import { generateKeyRing, importKeyRing, isKeyRing, ringVersion, signingKey } from '../../src/tokens/keys';
import { NOW_SEC as NOW } from '../support/clock';
import { issuesOf, rejection } from '../support/errors';

const ISS = 'https://svc.test';

async function issues(p: Promise<unknown> | (() => unknown)): Promise<ValidationError> {
  const err = await rejection(p);
  issuesOf(err);
  return err as ValidationError;
}

async function roundTrips(a: KeyRing, b: KeyRing): Promise<boolean> {
  const token = await mintToken(a, { kind: 'pat', iss: ISS, sub: 'u', jti: newTokenId(), iat: NOW, exp: NOW + 60 });
  await new TokenVerifier({ ring: b, issuer: ISS }).verify(token, NOW);
  return true;
}

const ALGS: KeyAlgorithm[] = ['EdDSA', 'ES256', 'HS256'];

describe('generateKeyRing', () => {
  it('T2: EdDSA (Ed25519) is the default', async () => {
    const ring = await generateKeyRing();
    const [key] = ring.exportPrivate().keys;
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
  });

  it.each(ALGS)('T2: %s key has its RFC 7638 thumbprint as kid', async (alg) => {
    const ring = await generateKeyRing({ alg });
    const key = ring.exportPrivate().keys[0]!;
    expect(key.alg).toBe(alg);
    expect(key.kid).toBe(await calculateJwkThumbprint(key));
    expect(signingKey(ring).kid).toBe(key.kid);
  });

  it('T2: HS256 secrets are 32 random bytes', async () => {
    const a = (await generateKeyRing({ alg: 'HS256' })).exportPrivate().keys[0]!;
    const b = (await generateKeyRing({ alg: 'HS256' })).exportPrivate().keys[0]!;
    expect(Buffer.from(a.k!, 'base64url')).toHaveLength(32);
    expect(a.k).not.toBe(b.k);
  });

  it.each([{ alg: 'RS256' }, { alg: 'none' }, { alg: 'HS256', extra: 1 }, 'EdDSA', null])(
    'T2: bad options %j are a ValidationError',
    async (options) => {
      await issues(generateKeyRing(options as never));
    },
  );
});

describe('KeyRing', () => {
  it.each(ALGS)('T2: %s publicJwks holds no private material', async (alg) => {
    const ring = await generateKeyRing({ alg });
    await ring.rotate();
    const { keys } = ring.publicJwks();
    for (const k of keys) {
      expect(k).not.toHaveProperty('d');
      expect(k).not.toHaveProperty('k');
      expect(k.use).toBe('sig');
    }
    expect(keys).toHaveLength(alg === 'HS256' ? 0 : 2);
  });

  it('T2: a ring printed or serialised shows no key material', async () => {
    const ring = await generateKeyRing({ alg: 'HS256' });
    const secret = ring.exportPrivate().keys[0]!.k!;
    expect(JSON.stringify(ring)).not.toContain(secret);
    expect(String(Object.keys(ring))).toBe('');
  });

  it('T2: exportPrivate hands out copies', async () => {
    const ring = await generateKeyRing();
    const exported = ring.exportPrivate();
    exported.keys[0]!.kid = 'changed';
    expect(ring.exportPrivate().keys[0]!.kid).not.toBe('changed');
  });

  it('T2: rotate adds a signing key in place, keeps the old one verify-only, and changes the version', async () => {
    const ring = await generateKeyRing();
    const v0 = ringVersion(ring);
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    expect(await ring.rotate()).toBe(ring);
    const kids = ring.exportPrivate().keys.map((k) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(oldKid);
    expect(signingKey(ring).kid).toBe(kids[0]);
    expect(ringVersion(ring)).not.toBe(v0);
  });

  it('T2: retire removes a verify-only key in place and changes the version', async () => {
    const ring = await generateKeyRing();
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    await ring.rotate();
    const v1 = ringVersion(ring);
    expect(ring.retire(oldKid)).toBe(ring);
    expect(ring.exportPrivate().keys.map((k) => k.kid)).not.toContain(oldKid);
    expect(ringVersion(ring)).not.toBe(v1);
  });

  it('T2: retiring the signing key or an unknown kid is a ValidationError and changes nothing', async () => {
    const ring = await generateKeyRing();
    const kid = ring.exportPrivate().keys[0]!.kid!;
    const v = ringVersion(ring);
    expect((await issues(() => ring.retire(kid))).issues[0]!.pathText).toBe('kid');
    expect((await issues(() => ring.retire('nope'))).issues[0]!.pathText).toBe('kid');
    expect((await issues(() => ring.retire(42 as never))).issues[0]!.pathText).toBe('kid');
    expect(ringVersion(ring)).toBe(v);
    expect(ring.exportPrivate().keys).toHaveLength(1);
  });

  it('T2: a look-alike object is not a ring', async () => {
    const fake = { publicJwks: () => ({ keys: [] }), exportPrivate: () => ({ keys: [] }), rotate: async () => fake, retire: () => fake };
    expect(isKeyRing(fake)).toBe(false);
    expect(isKeyRing(await generateKeyRing())).toBe(true);
    await issues(() => ringVersion(fake));
    await issues(mintToken(fake, { kind: 'pat', iss: ISS, sub: 'u', jti: 'j', iat: 1, exp: 2 }));
  });
});

describe('importKeyRing', () => {
  it.each(ALGS)('T2: importKeyRing(exportPrivate()) round-trips %s', async (alg) => {
    const ring = await generateKeyRing({ alg });
    await ring.rotate();
    const again = await importKeyRing(ring.exportPrivate());
    expect(again.exportPrivate()).toEqual(ring.exportPrivate());
    expect(await roundTrips(ring, again)).toBe(true);
    expect(await roundTrips(again, ring)).toBe(true);
  });

  it('T2: the first key signs, the others verify only', async () => {
    const a = await generateKeyRing();
    const b = await generateKeyRing();
    const ring = await importKeyRing({ keys: [...b.exportPrivate().keys, ...a.exportPrivate().keys] });
    expect(signingKey(ring).kid).toBe(b.exportPrivate().keys[0]!.kid);
    expect(await roundTrips(a, ring)).toBe(true);
  });

  it('T2: a kid chosen elsewhere is kept', async () => {
    const jwk = { ...(await generateKeyRing({ alg: 'HS256' })).exportPrivate().keys[0]!, kid: 'prod-2024_01' };
    const ring = await importKeyRing({ keys: [jwk] });
    expect(signingKey(ring).kid).toBe('prod-2024_01');
  });

  async function privateKey(alg: KeyAlgorithm = 'EdDSA'): Promise<JWK> {
    return (await generateKeyRing({ alg })).exportPrivate().keys[0]!;
  }

  const cases: [string, (k: JWK, other: JWK) => unknown, string][] = [
    ['not an object', () => 'keys', 'privateJwks'],
    ['no keys', () => ({ keys: [] }), 'privateJwks.keys'],
    ['keys not an array', () => ({ keys: {} }), 'privateJwks.keys'],
    ['unknown top-level member', (k) => ({ keys: [k], extra: 1 }), 'privateJwks'],
    ['missing kid', (k) => ({ keys: [{ ...k, kid: undefined }] }), 'privateJwks.keys[0].kid'],
    ['path-like kid', (k) => ({ keys: [{ ...k, kid: '../../etc/passwd' }] }), 'privateJwks.keys[0].kid'],
    ['kid of 65 characters', (k) => ({ keys: [{ ...k, kid: 'a'.repeat(65) }] }), 'privateJwks.keys[0].kid'],
    ['duplicate kid', (k, o) => ({ keys: [k, { ...o, kid: k.kid }] }), 'privateJwks.keys[1].kid'],
    ['public-only key', (k) => ({ keys: [{ ...k, d: undefined }] }), 'privateJwks.keys[0].d'],
    ['unknown member', (k) => ({ keys: [{ ...k, x5u: 'https://evil.test' }] }), 'privateJwks.keys[0]'],
    ['alg that does not fit the key', (k) => ({ keys: [{ ...k, alg: 'ES256' }] }), 'privateJwks.keys[0].alg'],
    ['RSA key', (k) => ({ keys: [{ kty: 'RSA', kid: k.kid, n: 'AQAB', e: 'AQAB', d: 'AQAB' }] }), 'privateJwks.keys[0].kty'],
    ['non-canonical base64url', (k) => ({ keys: [{ ...k, x: k.x!.slice(0, -1) + 'B' }] }), 'privateJwks.keys[0].x'],
    ['private half of another key', (k, o) => ({ keys: [{ ...k, d: o.d }] }), 'privateJwks.keys[0]'],
  ];

  it.each(cases)('T2: hostile input (%s) is a ValidationError', async (_name, build, path) => {
    const err = await issues(importKeyRing(build(await privateKey(), await privateKey()) as never));
    expect(err.issues.map((i) => i.pathText)).toContain(path);
  });

  it('T2: __proto__ in a key is refused', async () => {
    const k = await privateKey();
    const hostile = JSON.parse(JSON.stringify({ keys: [k] }).replace('"kty"', '"__proto__":{"admin":true},"kty"'));
    const err = await issues(importKeyRing(hostile));
    expect(err.issues[0]!.pathText).toBe('privateJwks.keys[0]');
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
  });

  it('T2: an HS256 secret under 32 bytes is refused', async () => {
    const k = await privateKey('HS256');
    const short = { ...k, k: Buffer.alloc(31, 7).toString('base64url') };
    const err = await issues(importKeyRing({ keys: [short] }));
    expect(err.issues.map((i) => i.pathText)).toContain('privateJwks.keys[0].k');
    const ok = { ...k, k: Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString('base64url') };
    expect(isKeyRing(await importKeyRing({ keys: [ok] }))).toBe(true);
  });

  it('T2: a ring of more than 32 keys is refused', async () => {
    const k = await privateKey('HS256');
    const keys = Array.from({ length: 33 }, (_, i) => ({ ...k, kid: `k${i}` }));
    await issues(importKeyRing({ keys }));
  });
});
