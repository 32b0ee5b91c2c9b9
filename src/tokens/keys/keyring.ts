/**
 * Key rings (T2): one signing key plus older verify-only keys. A ring changes in
 * place and counts its changes, so a verifier holding it can drop its cache.
 * @module
 */
import { ValidationError } from '../../errors';
import { MAX_RING_KEYS, loadRingKey, newRingKey, privateJwksSchema, toValidationError, type RingKey } from './ring-key';
import type { JWK, KeyAlgorithm, KeyRing } from '../types';

interface RingState {
  /** Signing key first. */
  keys: RingKey[];
  byKid: Map<string, RingKey>;
  version: number;
}

const INTERNAL = Symbol('svc-auth.key-ring');
let readState: (value: unknown) => RingState | undefined;

const ALGORITHMS: readonly KeyAlgorithm[] = ['EdDSA', 'ES256', 'HS256'];

// Private state lives in a private field, as in Grant and CompiledLayer: JSON.stringify(ring) and
// console.log(ring) show nothing secret, and a look-alike object or a Proxy is not a ring.
class SvcKeyRing implements KeyRing {
  readonly #state: RingState;

  constructor(key: symbol, ringState: RingState) {
    if (key !== INTERNAL) throw new ValidationError('use generateKeyRing() or importKeyRing() to build a key ring');
    this.#state = ringState;
  }

  static {
    // `#x in v` is false for a Proxy and for look-alike objects, and never runs a trap.
    readState = (value) => (typeof value === 'object' && value !== null && #state in value ? value.#state : undefined);
  }

  publicJwks(): { keys: JWK[] } {
    const keys: JWK[] = [];
    for (const k of state(this).keys) if (k.publicJwk !== null) keys.push({ ...k.publicJwk });
    return { keys };
  }

  exportPrivate(): { keys: JWK[] } {
    return { keys: state(this).keys.map((k) => ({ ...k.privateJwk })) };
  }

  async rotate(): Promise<KeyRing> {
    const s = state(this);
    const current = s.keys[0];
    // A ring always holds its signing key: retire refuses it and import needs one.
    if (current === undefined) throw new ValidationError('key ring has no signing key');
    const key = await newRingKey(current.alg);
    if (s.byKid.has(key.kid)) throw new ValidationError([{ path: 'kid', message: 'generated key collides with a ring key' }]);
    if (s.keys.length >= MAX_RING_KEYS) {
      throw new ValidationError([{ path: 'keys', message: `at most ${MAX_RING_KEYS} keys; retire old keys before rotating` }]);
    }
    s.keys = [key, ...s.keys];
    s.byKid.set(key.kid, key);
    s.version++;
    return this;
  }

  retire(kid: string): KeyRing {
    const s = state(this);
    const key = typeof kid === 'string' ? s.byKid.get(kid) : undefined;
    if (key === undefined) throw new ValidationError([{ path: 'kid', message: 'no key with this kid in the ring' }]);
    if (key === s.keys[0]) throw new ValidationError([{ path: 'kid', message: 'the signing key cannot be retired; rotate first' }]);
    s.keys = s.keys.filter((k) => k !== key);
    s.byKid.delete(kid);
    s.version++;
    return this;
  }
}

function state(ring: object): RingState {
  const s = readState(ring);
  if (s === undefined) throw new ValidationError([{ path: 'ring', message: 'not a key ring made by generateKeyRing or importKeyRing' }]);
  return s;
}

function makeRing(keys: RingKey[]): KeyRing {
  const ring = new SvcKeyRing(INTERNAL, { keys, byKid: new Map(keys.map((k) => [k.kid, k])), version: 0 });
  return Object.freeze(ring);
}

/**
 * Create a key ring with one new signing key. EdDSA (Ed25519) by default; ES256 and
 * HS256 (a 32-byte random secret) on request. The `kid` is the key's RFC 7638 thumbprint.
 *
 * @throws ValidationError when `options` or `options.alg` is not one of the above.
 * @example
 * ```ts
 * import { generateKeyRing } from 'svc-auth';
 * const ring = await generateKeyRing();                  // Ed25519
 * const shared = await generateKeyRing({ alg: 'HS256' }); // symmetric
 * ```
 */
export async function generateKeyRing(options?: { alg?: KeyAlgorithm }): Promise<KeyRing> {
  let alg: KeyAlgorithm = 'EdDSA';
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null || Object.keys(options).some((k) => k !== 'alg')) {
      throw new ValidationError([{ path: 'options', message: 'expected { alg?: "EdDSA" | "ES256" | "HS256" }' }]);
    }
    if (options.alg !== undefined) {
      if (!ALGORITHMS.includes(options.alg))
        throw new ValidationError([{ path: 'options.alg', message: 'expected EdDSA, ES256 or HS256' }]);
      alg = options.alg;
    }
  }
  return makeRing([await newRingKey(alg)]);
}

/** Longest key set text accepted: far above {@link MAX_RING_KEYS} keys of any kind. */
const MAX_KEY_TEXT = 1024 * 1024;

/**
 * Rebuild a key ring from {@link KeyRing.exportPrivate} output (e.g. read from a secret
 * manager): the object itself, or its JSON text (`JSON.stringify(ring.exportPrivate())`,
 * as a secret manager or an environment variable holds it). The first key signs; the
 * others verify only. Every key needs a `kid` matching `^[A-Za-z0-9_-]{1,64}$`; Ed25519
 * (`OKP`), P-256 (`EC`) and HS256 (`oct`, at least 32 bytes) keys are accepted, nothing
 * else. Each key is checked by signing and verifying a probe.
 *
 * @throws ValidationError listing every problem (text that is not JSON, unknown members,
 *   short secrets, duplicate or unsafe kids, public-only keys, mismatched key halves).
 *   No message quotes the input: it is a secret.
 * @example
 * ```ts
 * import { generateKeyRing, importKeyRing } from 'svc-auth';
 * const secret = JSON.stringify((await generateKeyRing()).exportPrivate()); // store this
 * const ring = await importKeyRing(process.env.SVC_KEYS ?? secret);         // text or object
 * ```
 */
export async function importKeyRing(privateJwks: { keys: JWK[] } | string): Promise<KeyRing> {
  const parsed = privateJwksSchema.safeParse(typeof privateJwks === 'string' ? parseKeyText(privateJwks) : privateJwks);
  if (!parsed.success) throw toValidationError(parsed.error, 'privateJwks');
  const seen = new Set<string>();
  const dupes = parsed.data.keys.flatMap((k, i) => {
    if (seen.has(k.kid)) return [{ path: `privateJwks.keys[${i}].kid`, message: 'duplicate kid' }];
    seen.add(k.kid);
    return [];
  });
  if (dupes.length > 0) throw new ValidationError(dupes);
  const keys: RingKey[] = [];
  for (const [i, jwk] of parsed.data.keys.entries()) keys.push(await loadRingKey(jwk, `privateJwks.keys[${i}]`));
  return makeRing(keys);
}

/** The JSON text of a key set, parsed; `ValidationError` for anything else. */
function parseKeyText(text: string): unknown {
  const issue = (message: string): ValidationError => new ValidationError([{ path: 'privateJwks', message }]);
  if (text.length > MAX_KEY_TEXT) throw issue('key set text longer than 1 MiB');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // No cause: JSON.parse's message quotes the text around the error, and the text is a secret.
    throw issue('not JSON text of the object exportPrivate() returns');
  }
}

/**
 * Change counter of a ring: any rotate or retire changes it. Internal to svc-auth.
 * @throws ValidationError when `ring` was not made by this library.
 * @example
 * ```ts
 * const v = ringVersion(ring); await ring.rotate(); ringVersion(ring) !== v; // true
 * ```
 */
export function ringVersion(ring: KeyRing): number {
  return state(ring).version;
}

/**
 * Whether `ring` was made by {@link generateKeyRing} or {@link importKeyRing}. Internal.
 * @example
 * ```ts
 * if (!isKeyRing(options.keys)) throw new ValidationError('keys: not a key ring');
 * ```
 */
export function isKeyRing(ring: unknown): ring is KeyRing {
  return readState(ring) !== undefined;
}

/**
 * The current signing key. Internal.
 * @example
 * ```ts
 * const { kid, alg, signKey } = signingKey(ring);
 * ```
 */
export function signingKey(ring: KeyRing): RingKey {
  const key = state(ring).keys[0];
  if (key === undefined) throw new ValidationError('key ring has no signing key');
  return key;
}

/**
 * The key a token header names, if the ring still holds it. Internal.
 * @example
 * ```ts
 * const key = findKey(ring, header.kid); // undefined when unknown or retired
 * ```
 */
export function findKey(ring: KeyRing, kid: string): RingKey | undefined {
  return state(ring).byKid.get(kid);
}
