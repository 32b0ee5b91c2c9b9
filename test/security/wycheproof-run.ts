/**
 * Runs Wycheproof vectors against svc-auth. JWS and JWK vectors go through the
 * public API: `importKeyRing` with the group's key set, then `authenticate`
 * with the JWS. The Ed25519, ECDSA P-256 and HMAC-SHA256 vectors sign raw
 * messages, which no JWS can carry (a JWS signs `header.payload`), so they run
 * through the very primitives a ring's keys use (WebCrypto keys imported as
 * `importKeyRing` imports them) plus the library's own signature rules (ES256
 * low-S, full-length tags).
 */
import { base64url, importJWK, type CryptoKey } from 'jose';
import { createAuth } from '../../src/service';
import { isLowS } from '../../src/tokens/keys';
import { importKeyRing } from '../../src/tokens';

/** Why a case was refused: the first stage that said no. */
export type Stage = 'import' | 'authenticate' | 'primitive' | 'low-s' | 'length' | 'accepted';

export interface Outcome {
  file: string;
  tcId: number;
  result: 'valid' | 'invalid' | 'acceptable';
  stage: Stage;
  detail: string;
}

interface Group {
  tests: {
    tcId: number;
    result: 'valid' | 'invalid' | 'acceptable';
    jws?: unknown;
    msg?: string;
    sig?: string;
    tag?: string;
    key?: string;
    comment?: string;
  }[];
  private?: unknown;
  publicKeyJwk?: Record<string, unknown>;
  publicKeyDer?: string;
  keySize?: number;
  tagSize?: number;
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

function detailOf(err: unknown): string {
  const e = err as { code?: string; reason?: string; issues?: { path: string; message: string }[] };
  if (e?.code === 'validation') return `validation: ${e.issues?.[0]?.path ?? ''} ${e.issues?.[0]?.message ?? ''}`.trim();
  return `${e?.code ?? 'error'}${e?.reason ? `:${e.reason}` : ''}`;
}

/** JWS and JWK files: import the group's keys as a ring, then authenticate each JWS. */
export async function runJose(file: string, text: string): Promise<Outcome[]> {
  const data = JSON.parse(text) as { testGroups: Group[] };
  const out: Outcome[] = [];
  for (const g of data.testGroups) {
    const priv = g.private as { keys?: unknown[] } | undefined;
    const keyset = priv && Array.isArray(priv.keys) ? priv : { keys: [priv] };
    let auth: ReturnType<typeof createAuth> | undefined;
    let importError = '';
    try {
      const ring = await importKeyRing(keyset as never);
      auth = createAuth({ issuer: 'wycheproof', keys: ring, members: { rolesOf: () => ({}) } });
    } catch (err) {
      importError = detailOf(err);
    }
    for (const t of g.tests) {
      const base = { file, tcId: t.tcId, result: t.result };
      if (auth === undefined) {
        out.push({ ...base, stage: 'import', detail: importError });
        continue;
      }
      const jws = typeof t.jws === 'string' ? t.jws : JSON.stringify(t.jws);
      try {
        await auth.authenticate(jws);
        out.push({ ...base, stage: 'accepted', detail: '' });
      } catch (err) {
        out.push({ ...base, stage: 'authenticate', detail: detailOf(err) });
      }
    }
  }
  return out;
}

/** Ed25519 and ECDSA P-256 (P1363) verify vectors. */
export async function runSignatures(file: string, text: string, alg: 'EdDSA' | 'ES256'): Promise<Outcome[]> {
  const data = JSON.parse(text) as { testGroups: Group[] };
  const out: Outcome[] = [];
  const params = alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', hash: 'SHA-256' };
  for (const g of data.testGroups) {
    const { kid: _kid, ...jwk } = g.publicKeyJwk ?? {};
    // A public key alone is never a ring: importKeyRing must refuse it.
    const publicOnly = await importKeyRing({ keys: [{ ...jwk, kid: 'pub' }] } as never).then(
      () => 'accepted',
      () => 'refused',
    );
    if (publicOnly !== 'refused') throw new Error(`${file}: importKeyRing accepted a public key`);
    let key: CryptoKey | undefined;
    try {
      // A few groups (keys with edge-case coordinates) carry only the DER form.
      key = g.publicKeyJwk
        ? ((await importJWK(jwk, alg, { extractable: true })) as CryptoKey)
        : await crypto.subtle.importKey(
            'spki',
            hex(g.publicKeyDer ?? ''),
            alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', namedCurve: 'P-256' },
            true,
            ['verify'],
          );
    } catch {
      key = undefined;
    }
    for (const t of g.tests) {
      const base = { file, tcId: t.tcId, result: t.result };
      if (key === undefined) {
        out.push({ ...base, stage: 'import', detail: 'public key not importable' });
        continue;
      }
      const sig = hex(t.sig ?? '');
      if (alg === 'ES256' && sig.length === 64 && !isLowS(base64url.encode(sig))) {
        out.push({ ...base, stage: 'low-s', detail: 's > n/2' });
        continue;
      }
      const ok = await crypto.subtle.verify(params, key, sig, hex(t.msg ?? '')).catch(() => false);
      out.push({ ...base, stage: ok ? 'accepted' : 'primitive', detail: ok ? '' : 'signature does not verify' });
    }
  }
  return out;
}

/** HMAC-SHA256 vectors: HS256 uses full 32-byte tags only. */
export async function runHmac(file: string, text: string): Promise<Outcome[]> {
  const data = JSON.parse(text) as { testGroups: Group[] };
  const out: Outcome[] = [];
  for (const g of data.testGroups) {
    for (const t of g.tests) {
      const base = { file, tcId: t.tcId, result: t.result };
      const tag = hex(t.tag ?? '');
      if (tag.length !== 32) {
        out.push({ ...base, stage: 'length', detail: `tag of ${tag.length} bytes` });
        continue;
      }
      const key = await crypto.subtle
        .importKey('raw', hex(t.key ?? ''), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
        .catch(() => undefined);
      const ok = key !== undefined && (await crypto.subtle.verify({ name: 'HMAC' }, key, tag, hex(t.msg ?? '')).catch(() => false));
      out.push({ ...base, stage: ok ? 'accepted' : 'primitive', detail: ok ? '' : 'tag does not verify' });
    }
  }
  return out;
}
