import fc from 'fast-check';
import { SignJWT } from 'jose';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import {
  newTokenId,
  generateKeyRing,
  mintToken,
  TOKEN_PATTERN,
  TOKEN_PREFIX,
  findTokens,
  type KeyAlgorithm,
  type TokenKind,
} from '../../src/tokens';
import { NOW_SEC as NOW } from '../support/clock';

async function token(kind: TokenKind = 'pat', alg: KeyAlgorithm = 'EdDSA'): Promise<string> {
  const ring = await generateKeyRing({ alg });
  return mintToken(ring, { kind, iss: 'https://svc.test', sub: 'user-1', jti: newTokenId(), iat: NOW, exp: NOW + 86400 });
}

const find = findTokens;

describe('TOKEN_PREFIX and TOKEN_PATTERN', () => {
  it('T1: the prefix is the base64url of {"typ":"svc-pat+jwt",', () => {
    expect(TOKEN_PREFIX).toBe(Buffer.from('{"typ":"svc-pat+jwt",').toString('base64url'));
  });

  it.each(['EdDSA', 'ES256', 'HS256'] as const)('T1: every %s PAT starts with the prefix and is found whole', async (alg) => {
    const pat = await token('pat', alg);
    expect(pat.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(find(pat)).toEqual([pat]);
  });

  it('T1: finds PATs in arbitrary text', async () => {
    const [a, b] = [await token(), await token('pat', 'HS256')];
    const text = `export SVC_TOKEN=${a}\nAuthorization: Bearer ${b}.\n"token":"${a}", (${b})`;
    expect(find(text)).toEqual([a, b, a, b]);
  });

  it('T1: finds a PAT between any surrounding text that does not extend it (property)', async () => {
    const pat = await token();
    const sep = fc.constantFrom(' ', '\n', '"', "'", '=', ':', ',', ';', '(', ')', '<', '>', '/', '\t');
    await fc.assert(
      fc.asyncProperty(fc.string(), sep, sep, fc.string(), async (before, l, r, after) => {
        const found = find(`${before}${l}${pat}${r}${after}`);
        expect(found).toContain(pat);
      }),
    );
  });

  it.each(['session', 'component'] as const)('T1: does not match %s tokens', async (kind) => {
    const t = await token(kind);
    expect(find(`Bearer ${t}`)).toEqual([]);
  });

  it('T1: does not match other JWTs', async () => {
    const hs = jwt.sign({ sub: 'u' }, 'x'.repeat(32));
    const key = new TextEncoder().encode('y'.repeat(32));
    const typed = await new SignJWT({ sub: 'u' }).setProtectedHeader({ typ: 'svc-pat+jwt-x', alg: 'HS256' }).sign(key);
    const lower = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256', typ: 'svc-pat+jwt' }).sign(key);
    expect(find(`${hs} ${typed} ${lower}`)).toEqual([]);
  });

  it('T1: does not match a piece of a longer token-like string', async () => {
    const pat = await token();
    const [h, p, s] = pat.split('.') as [string, string, string];
    expect(find(`x${pat}`)).toEqual([]);
    expect(find(`${pat}x`)).toEqual([]);
    expect(find(`${h}.${p}.${s.slice(0, 60)}`)).toEqual([]);
    expect(find(`${h}.${p}`)).toEqual([]);
    expect(find(TOKEN_PREFIX)).toEqual([]);
  });

  it('T1: long runs of prefix-like text without a signature match nothing', () => {
    const hostile = (TOKEN_PREFIX + 'A'.repeat(3000) + '.').repeat(50);
    expect(find(hostile)).toEqual([]);
  });

  it('a PAT followed by .json is found (was missed: a leaked-token file name)', async () => {
    const pat = await token();
    expect(find(`cat ${pat}.json`)).toEqual([pat]);
    expect(TOKEN_PATTERN.test(`${pat}.json`)).toBe(true);
  });

  it('a PAT preceded by x. is found (was missed: a dotted prefix such as a key path)', async () => {
    const pat = await token();
    expect(find(`x.${pat}`)).toEqual([pat]);
    expect(find(`config.token.${pat}.sig`)).toEqual([pat]);
  });

  it('TOKEN_PATTERN.test gives the same answer on every call (was global: alternated true/false)', async () => {
    const pat = await token();
    const log = `Authorization: Bearer ${pat}`;
    expect(TOKEN_PATTERN.global || TOKEN_PATTERN.sticky).toBe(false);
    expect([1, 2, 3, 4].map(() => TOKEN_PATTERN.test(log))).toEqual([true, true, true, true]);
    expect(find(log)).toEqual([pat]);
    expect(find(log)).toEqual([pat]);
  });

  it('findTokens refuses a non-string quietly and holds no state between calls', async () => {
    expect(findTokens(undefined as unknown as string)).toEqual([]);
    const pat = await token();
    expect(find(`${pat} ${pat}`)).toEqual([pat, pat]);
  });
});
