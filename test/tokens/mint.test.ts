import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { newTokenId, generateKeyRing, mintToken, type TokenClaims, type TokenKind } from '../../src/tokens';
import { TOKEN_TYPES } from '../../src/tokens/claims';
import { NOW_SEC as NOW } from '../support/clock';

const base: TokenClaims = { kind: 'pat', iss: 'https://svc.test', sub: 'u1', jti: 'id-1', iat: NOW, exp: NOW + 60 };
const part = (token: string, i: number) => Buffer.from(token.split('.')[i]!, 'base64url').toString('utf8');

describe('mintToken', () => {
  it.each(['pat', 'session', 'component'] as TokenKind[])('T1: the %s header is typ, alg, kid in that order', async (kind) => {
    const ring = await generateKeyRing();
    const kid = ring.exportPrivate().keys[0]!.kid;
    const token = await mintToken(ring, { ...base, kind });
    expect(part(token, 0)).toBe(`{"typ":"${TOKEN_TYPES[kind]}","alg":"EdDSA","kid":"${kid}"}`);
  });

  it('T1: the payload is exactly iss, sub, jti, iat, exp', async () => {
    const ring = await generateKeyRing({ alg: 'HS256' });
    const token = await mintToken(ring, base);
    expect(part(token, 1)).toBe(`{"iss":"https://svc.test","sub":"u1","jti":"id-1","iat":${NOW},"exp":${NOW + 60}}`);
  });

  it('T1: the three kinds have three different typ values', () => {
    expect(new Set(Object.values(TOKEN_TYPES)).size).toBe(3);
  });

  it.each([
    ['claims.kind', { kind: 'admin' }],
    ['claims.kind', { kind: 'toString' }],
    ['claims.iss', { iss: '' }],
    ['claims.sub', { sub: 7 }],
    ['claims.jti', { jti: 'x'.repeat(1025) }],
    ['claims.iat', { iat: NOW + 0.5 }],
    ['claims.exp', { exp: Number.NaN }],
    ['claims.exp', { exp: NOW }],
    ['claims.scopes', { scopes: ['repo:read'] }],
  ])('T1: bad claims are a ValidationError at %s', async (path, over) => {
    const ring = await generateKeyRing();
    const err = await mintToken(ring, { ...base, ...over } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues[0]!.pathText).toBe(path);
  });

  it('T1: claims that are not an object are a ValidationError', async () => {
    const ring = await generateKeyRing();
    await expect(mintToken(ring, null as never)).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('newTokenId', () => {
  it('T1: 128 random bits as 22 base64url characters, never repeated', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newTokenId();
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
      ids.add(id);
    }
    expect(ids.size).toBe(2000);
  });
});
