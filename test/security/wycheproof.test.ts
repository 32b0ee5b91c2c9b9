/**
 * Wycheproof (C2SP/wycheproof, Apache-2.0) JWS, JWK, Ed25519, ECDSA P-256 and
 * HMAC-SHA256 vectors against svc-auth: every invalid case must be refused.
 * The vector files are not in this repository (see test/security/wycheproof-vectors.ts
 * and docs/security.md); without them this suite skips with a message, also in CI.
 *
 * A library may be stricter than a vector: every case the vectors call valid
 * that svc-auth refuses is listed in STRICTER below, by id, with the reason,
 * and the test fails if the refused set differs from that table.
 */
import { describe, expect, it } from 'vitest';
import { runHmac, runJose, runSignatures, type Outcome, type Stage } from './wycheproof-run';
import { loadVectors, VECTOR_FILES } from './wycheproof-vectors';

interface Stricter {
  file: string;
  stage: Stage;
  ids: number[];
  reason: string;
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** Valid (or acceptable) vectors that svc-auth refuses, and why. */
const STRICTER: Stricter[] = [
  {
    file: 'jws',
    stage: 'authenticate',
    ids: [1, 18, 348, 352, 378],
    reason: 'T1: the JWS is not an svc-auth token (no svc typ header, payload is not the five claims); the key itself imported',
  },
  {
    file: 'jws',
    stage: 'import',
    ids: [33, ...range(259, 275), 287, 288, 320, 321, 322, 323, 325, 326, 327, 328, 345, 346, 349, 350],
    reason: 'T2: RSA (RS*/PS*) and P-521 keys are outside EdDSA, ES256 and HS256; importKeyRing refuses them',
  },
  { file: 'jws', stage: 'import', ids: [347, 351], reason: 'T2: the kid (an RFC 7520 e-mail address) is outside ^[A-Za-z0-9_-]{1,64}$' },
  {
    file: 'jws',
    stage: 'import',
    ids: [357, 358, 359, 372, 373, 376, 377],
    reason: "T2: the group's HS256 secret is 32 zero bytes; importKeyRing refuses keys with no entropy",
  },
  { file: 'jwk', stage: 'authenticate', ids: [2, 13], reason: 'T1: the JWS is not an svc-auth token (the key set itself imported)' },
  { file: 'jwk', stage: 'import', ids: [5], reason: 'T2: RSA keys are not supported' },
  { file: 'jwk', stage: 'import', ids: [14, 15], reason: 'T2: HS384/HS512 keys are not supported (HS256 only)' },
  {
    file: 'ecdsa',
    stage: 'low-s',
    ids: [
      64, 66, 67, 68, 71, 77, 78, 80, 81, 85, 86, 87, 94, 95, 96, 100, 102, 104, 105, 107, 110, 111, 114, 115, 117, 118, 138, 139, 140, 141,
      142, 171, 172, 175, 176, 177, 180, 183, 189, 190, 191, 192, 195, 196, 197, 199, 200, 204, 210, 211, 216, 217, 226, 227, 229, 233, 234,
      237, 240, 242, 243, 244, 246, 248, 249, 250, 252, 253, 257, 262,
    ],
    reason: 'T2: high-S signatures (s > n/2) are refused so that one ES256 token has one text; svc-auth mints low-S only',
  },
  {
    file: 'hmac',
    stage: 'length',
    ids: [...range(82, 108), 166, 167, 168, 172, 173, 174],
    reason: 'HS256 uses the full 32-byte tag; these vectors test truncated 16-byte tags',
  },
];

const sources = Object.fromEntries(VECTOR_FILES.map((f) => [f, loadVectors(f)]));
const missing = VECTOR_FILES.filter((f) => sources[f] === undefined);
if (missing.length > 0) {
  console.warn(
    `[wycheproof] SKIPPED: vector files not found (${missing.join(', ')}). Set WYCHEPROOF_DIR (see scripts/wycheproof.mjs) or WYCHEPROOF_GIT_DIR; docs/security.md explains.`,
  );
}

describe.skipIf(missing.length > 0)('Wycheproof vectors', () => {
  it('every invalid case is refused; every valid case refused is explained in STRICTER', async () => {
    const text = (f: (typeof VECTOR_FILES)[number]) => sources[f]!.text;
    const all: Outcome[] = [
      ...(await runJose('jws', text('json_web_signature_test.json'))),
      ...(await runJose('jwk', text('json_web_key_test.json'))),
      ...(await runSignatures('ed25519', text('ed25519_test.json'), 'EdDSA')),
      ...(await runSignatures('ecdsa', text('ecdsa_secp256r1_sha256_p1363_test.json'), 'ES256')),
      ...(await runHmac('hmac', text('hmac_sha256_test.json'))),
    ];
    const invalid = all.filter((o) => o.result === 'invalid');
    const acceptedInvalid = invalid.filter((o) => o.stage === 'accepted');
    expect(acceptedInvalid).toEqual([]);

    const refusedValid = all.filter((o) => o.result !== 'invalid' && o.stage !== 'accepted');
    const explained = new Map(STRICTER.flatMap((s) => s.ids.map((id) => [`${s.file}#${id}`, s.stage] as const)));
    expect(refusedValid.map((o) => `${o.file}#${o.tcId} ${o.stage}`).sort()).toEqual(
      [...explained].map(([k, stage]) => `${k} ${stage}`).sort(),
    );

    const lines = ['jws', 'jwk', 'ed25519', 'ecdsa', 'hmac'].map((file) => {
      const mine = all.filter((o) => o.file === file);
      const inv = mine.filter((o) => o.result === 'invalid');
      const val = mine.filter((o) => o.result !== 'invalid');
      return `${file}: ${inv.length}/${inv.length} invalid refused; ${val.filter((o) => o.stage === 'accepted').length}/${val.length} valid accepted (rest stricter, explained)`;
    });
    console.info(`[wycheproof] ${invalid.length} invalid cases, all refused\n  ${lines.join('\n  ')}`);
    expect(invalid.length).toBeGreaterThan(600);
  }, 120_000);
});
