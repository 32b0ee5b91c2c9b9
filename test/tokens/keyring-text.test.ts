/**
 * Issue 18, item 11: `importKeyRing(secret)` reads as if it took the secret's
 * text, and now it does: the JSON text of `exportPrivate()` as well as the
 * object. Text that is not such JSON is a ValidationError that never quotes it
 * (it is a secret).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { generateKeyRing, importKeyRing, mintToken, newTokenId, TokenVerifier } from '../../src/tokens';
import { NOW_SEC as NOW } from '../support/clock';
import { rejection } from '../support/errors';

describe('importKeyRing of the JSON text (issue 18, item 11)', () => {
  it('the text of exportPrivate() gives the same ring as the object: same keys, tokens verify across', async () => {
    for (const alg of ['EdDSA', 'ES256', 'HS256'] as const) {
      const ring = await generateKeyRing({ alg });
      await ring.rotate();
      const text = JSON.stringify(ring.exportPrivate());
      const fromText = await importKeyRing(text);
      const fromObject = await importKeyRing(ring.exportPrivate());
      expect(fromText.exportPrivate()).toEqual(fromObject.exportPrivate());
      const token = await mintToken(ring, { kind: 'pat', iss: 'i', sub: 'u', jti: newTokenId(), iat: NOW, exp: NOW + 60 });
      expect((await new TokenVerifier({ ring: fromText, issuer: 'i' }).verify(token, NOW)).sub).toBe('u');
      // Pretty-printed, as a secret manager may hold it.
      expect((await importKeyRing(JSON.stringify(ring.exportPrivate(), null, 2))).exportPrivate()).toEqual(fromObject.exportPrivate());
    }
  });

  it('text that is not the JSON of a key set is a ValidationError at privateJwks, quoting nothing of it', async () => {
    const ring = await generateKeyRing({ alg: 'HS256' });
    const text = JSON.stringify(ring.exportPrivate());
    const secret = (ring.exportPrivate().keys[0] as { k: string }).k;
    for (const bad of [text.slice(0, -3), `${text}x`, '', ' ', 'keys', "{'keys':[]}", text.replace('{', '{{')]) {
      const err = await rejection(importKeyRing(bad));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues.map((i) => i.pathText)).toEqual(['privateJwks']);
      expect((err as ValidationError).cause).toBeUndefined();
      expect(JSON.stringify({ m: (err as Error).message, i: (err as ValidationError).issues })).not.toContain(secret.slice(0, 12));
    }
  });

  it('JSON of the wrong shape is refused as the object would be; more than 1 MiB is refused unread', async () => {
    for (const bad of ['{"keys":[]}', '[]', 'null', '"keys"', '{"keys":[{"kty":"oct"}]}', '{"keys":[],"__proto__":{}}']) {
      expect(await rejection(importKeyRing(bad))).toBeInstanceOf(ValidationError);
    }
    const huge = `{"keys":[${' '.repeat(1024 * 1024)}]}`;
    expect((await rejection(importKeyRing(huge))) as ValidationError).toMatchObject({ issues: [{ pathText: 'privateJwks' }] });
  });

  it('property: any text is a ValidationError or a ring, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json()), async (text) => {
        try {
          await importKeyRing(text);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
