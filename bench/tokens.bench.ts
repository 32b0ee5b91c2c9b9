/**
 * JWT verification cost: ours (TokenVerifier) beside bare jose, fast-jwt,
 * jsonwebtoken and a hand-written node:crypto floor.
 *
 * COLD: every call verifies a token not seen before (2000 pre-minted tokens in
 * rotation, caches off), so each call pays for the signature. HOT: one token again
 * and again with the verified-signature cache on (ours) or fast-jwt's LRU cache.
 *
 *   npx tsx bench/tokens.bench.ts
 */
import { createHmac, createPublicKey, createSecretKey, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createVerifier } from 'fast-jwt';
import { importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import { Bench } from 'tinybench';
import { newTokenId } from '../src/tokens/claims';
import { generateKeyRing } from '../src/tokens/keys/keyring';
import { mintToken } from '../src/tokens/mint';
import type { KeyRing } from '../src/tokens/types';
import { TokenVerifier } from '../src/tokens/verify';
import { ratioTable } from './report';

const ISS = 'https://svc.bench';
const TOKENS = 2000;

type Alg = 'EdDSA' | 'HS256';

/** What a verifier answered, normalised so engines compare equal. */
type Answer = string;
const answer = (p: { sub?: unknown; jti?: unknown; exp?: unknown }): Answer => `${String(p.sub)}|${String(p.jti)}|${String(p.exp)}`;

interface Engine {
  name: string;
  /** Resolves to the answer, rejects (or throws) on a bad token. */
  verify: (token: string) => Answer | Promise<Answer>;
}

interface Fixture {
  alg: Alg;
  ring: KeyRing;
  tokens: string[];
  nowSec: number;
  jwk: JWK;
}

async function fixture(alg: Alg): Promise<Fixture> {
  const ring = await generateKeyRing({ alg });
  const nowSec = Math.floor(Date.now() / 1000);
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    tokens.push(
      await mintToken(ring, { kind: 'pat', iss: ISS, sub: `user-${i % 50}`, jti: newTokenId(), iat: nowSec, exp: nowSec + 86400 }),
    );
  }
  return { alg, ring, tokens, nowSec, jwk: ring.exportPrivate().keys[0]! };
}

/** The least work that still checks a token: split, decode, verify, parse, expiry. */
function floorEngine(f: Fixture): Engine {
  let check: (input: string, sig: Buffer) => boolean;
  if (f.alg === 'HS256') {
    const secret = Buffer.from(f.jwk.k!, 'base64url');
    check = (input, sig) => {
      const mac = createHmac('sha256', secret).update(input).digest();
      return mac.length === sig.length && timingSafeEqual(mac, sig);
    };
  } else {
    const key: KeyObject = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: f.jwk.x! }, format: 'jwk' });
    check = (input, sig) => cryptoVerify(null, Buffer.from(input), key, sig);
  }
  return {
    name: 'node:crypto floor (hand-written)',
    verify: (token) => {
      const a = token.indexOf('.');
      const b = token.lastIndexOf('.');
      if (!check(token.slice(0, b), Buffer.from(token.slice(b + 1), 'base64url'))) throw new Error('bad signature');
      const p = JSON.parse(Buffer.from(token.slice(a + 1, b), 'base64url').toString('utf8')) as { exp: number; sub: string; jti: string };
      if (!(Date.now() / 1000 < p.exp)) throw new Error('expired');
      return answer(p);
    },
  };
}

async function engines(f: Fixture, hot: boolean): Promise<Engine[]> {
  const ours = new TokenVerifier({ ring: f.ring, issuer: ISS, cacheSize: hot ? 10_000 : 0 });
  const pem =
    f.alg === 'HS256'
      ? Buffer.from(f.jwk.k!, 'base64url')
      : (createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: f.jwk.x! }, format: 'jwk' }).export({
          type: 'spki',
          format: 'pem',
        }) as string);
  const fast = createVerifier({ key: pem, algorithms: [f.alg], allowedIss: ISS, cache: hot ? 10_000 : false });
  const list: Engine[] = [
    {
      name: hot ? 'svc-auth TokenVerifier (cache on)' : 'svc-auth TokenVerifier (cache off)',
      verify: async (t) => answer(await ours.verify(t, f.nowSec)),
    },
    {
      name: hot ? 'fast-jwt createVerifier (cache on)' : 'fast-jwt createVerifier (no cache)',
      verify: (t) => answer(fast(t) as Record<string, unknown>),
    },
  ];
  if (hot) return list;
  // jose's importJWK gives bytes for an oct key, which jose would import again on
  // every call; a CryptoKey made once is the fair baseline (and what svc-auth holds).
  const joseKey =
    f.alg === 'HS256'
      ? await crypto.subtle.importKey('raw', Buffer.from(f.jwk.k!, 'base64url'), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
      : ((await importJWK({ kty: 'OKP', crv: 'Ed25519', x: f.jwk.x! }, f.alg)) as CryptoKey);
  list.push({
    name: 'jose jwtVerify (pre-imported key)',
    verify: async (t) => answer((await jwtVerify(t, joseKey, { algorithms: [f.alg], issuer: ISS })).payload),
  });
  if (f.alg === 'HS256') {
    // A KeyObject made once: given a Buffer, jsonwebtoken first tries it as a public
    // key and fails (an exception per call), about 30x slower than this.
    const secret = createSecretKey(Buffer.from(f.jwk.k!, 'base64url'));
    list.push({
      name: 'jsonwebtoken verify (KeyObject)',
      verify: (t) => answer(jsonwebtoken.verify(t, secret, { algorithms: ['HS256'], issuer: ISS }) as Record<string, unknown>),
    });
  }
  list.push(floorEngine(f));
  return list;
}

/** Every engine must accept every token with the same answer and refuse a tampered one. */
async function sameAnswers(f: Fixture, list: Engine[], tokens: string[]): Promise<void> {
  for (const token of tokens) {
    const answers = await Promise.all(list.map(async (e) => e.verify(token)));
    if (new Set(answers).size !== 1) throw new Error(`${f.alg}: engines disagree on a valid token: ${answers.join(' / ')}`);
    const i = token.lastIndexOf('.') + 10;
    const bad = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    for (const e of list) {
      const accepted = await Promise.resolve()
        .then(() => e.verify(bad))
        .then(
          () => true,
          () => false,
        );
      if (accepted) throw new Error(`${f.alg}: ${e.name} accepted a tampered token`);
    }
  }
}

const ROUNDS = 5;

function nsPerOp(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || (result.state !== 'completed' && result.state !== 'aborted-with-statistics'))
    throw new Error(`bench task ${name} did not complete`);
  return result.latency.mean * 1e6;
}

/**
 * Engines take turns in short rounds and each keeps its best round: on a shared,
 * busy machine a burst of someone else's work then spoils one round of one engine,
 * not the ratio between engines.
 */
async function measure(list: Engine[], tokens: string[]): Promise<Map<string, number>> {
  const best = new Map<string, number>();
  const cursor = new Map<string, number>(list.map((e) => [e.name, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const e of list) {
      const bench = new Bench({ time: 250, warmupTime: round === 0 ? 100 : 20 });
      let i = cursor.get(e.name) ?? 0;
      bench.add(e.name, () => e.verify(tokens[i++ % tokens.length]!));
      await bench.run();
      cursor.set(e.name, i);
      const ns = nsPerOp(bench, e.name);
      best.set(e.name, Math.min(best.get(e.name) ?? Infinity, ns));
    }
  }
  return best;
}

/**
 * Run the benchmark and return its markdown section.
 *
 * @example
 * ```ts
 * console.log(await run());
 * ```
 */
export async function run(): Promise<string> {
  const fixtures = [await fixture('EdDSA'), await fixture('HS256')];
  const cold = new Map<Alg, Map<string, number>>();
  const hot = new Map<Alg, Map<string, number>>();
  const coldRows = [
    'svc-auth TokenVerifier (cache off)',
    'jose jwtVerify (pre-imported key)',
    'fast-jwt createVerifier (no cache)',
    'jsonwebtoken verify (KeyObject)',
    'node:crypto floor (hand-written)',
  ];
  const hotRows = ['svc-auth TokenVerifier (cache on)', 'fast-jwt createVerifier (cache on)'];
  for (const f of fixtures) {
    const coldList = await engines(f, false);
    await sameAnswers(f, coldList, f.tokens.slice(0, 200));
    cold.set(f.alg, await measure(coldList, f.tokens));

    const hotList = await engines(f, true);
    const one = f.tokens.slice(0, 1);
    await sameAnswers(f, hotList, one);
    hot.set(f.alg, await measure(hotList, one));
  }
  const FLOOR = 'node:crypto floor (hand-written)';
  const coldCols = fixtures.map((f) => ({ title: `${f.alg} per verify`, times: cold.get(f.alg)!, base: FLOOR }));
  const hotCols = fixtures.map((f) => ({
    title: `${f.alg} per verify`,
    times: hot.get(f.alg)!,
    base: 'fast-jwt createVerifier (cache on)',
  }));
  return [
    '## Tokens: JWT verification',
    '',
    `COLD: each call verifies the next of ${TOKENS} pre-minted PATs (caches off), so every call checks a signature.`,
    `Engines take turns in ${ROUNDS} rounds of 250 ms; each figure is the engine's best round (mean ns per verify).`,
    'All engines were first checked to accept the same tokens with the same claims and to refuse a tampered one.',
    'jsonwebtoken has no EdDSA support (n/a). svc-auth and jose go through WebCrypto, which is asynchronous per',
    'call; on HS256 that round trip, not the HMAC, is most of the cost. svc-auth adds its own checks on top of jose',
    '(size cap, strict header and claim schema, canonical signature, kid lookup).',
    '',
    ratioTable(coldRows, coldCols, 'floor'),
    '',
    'HOT: one token verified again and again with the verified-signature cache on (fast-jwt: its LRU cache).',
    'svc-auth still checks expiry and `iat` against the injected clock on every hit.',
    '',
    ratioTable(hotRows, hotCols, 'fast-jwt'),
    '',
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(await run());
}
