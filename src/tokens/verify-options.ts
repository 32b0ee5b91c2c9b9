/**
 * The options of {@link TokenVerifier}, checked once when it is built.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { LIFETIMES } from './duration';
import { isKeyRing } from './keys';
import type { KeyRing, TokenKind } from './types';

const KINDS: readonly TokenKind[] = ['pat', 'session', 'component'];
const MAX_TOLERANCE_SEC = 300;
const MAX_CACHE_SIZE = 1_000_000;

/** @internal the checked options of a TokenVerifier. */
export interface ReadOptions {
  ring: KeyRing;
  issuer: string;
  toleranceSec: number;
  cacheSize: number;
  maxLifetime: Readonly<Record<TokenKind, number>>;
}

/**
 * @internal Check a TokenVerifier's options once, when it is built; every
 * problem is collected and thrown as one ValidationError.
 *
 * @example
 * ```ts
 * const o = readOptions({ ring, issuer: 'https://svc.example' }); // o.toleranceSec === 5
 * ```
 */
export function readOptions(options: unknown): ReadOptions {
  const issues: IssueInput[] = [];
  const o = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
  if (o !== options) issues.push({ path: '', message: 'expected an options object' });
  const known = new Set(['ring', 'issuer', 'clockToleranceSec', 'cacheSize', 'maxLifetimeSec']);
  for (const name of Object.keys(o)) if (!known.has(name)) issues.push({ path: name, message: 'unknown option' });
  if (!isKeyRing(o['ring'])) issues.push({ path: 'ring', message: 'expected a key ring made by generateKeyRing or importKeyRing' });
  const issuer = o['issuer'];
  if (typeof issuer !== 'string' || issuer.length === 0 || issuer.length > 1024)
    issues.push({ path: 'issuer', message: 'expected a non-empty string' });
  const toleranceSec = o['clockToleranceSec'] ?? 5;
  if (!isIntIn(toleranceSec, 0, MAX_TOLERANCE_SEC))
    issues.push({ path: 'clockToleranceSec', message: `expected whole seconds from 0 to ${MAX_TOLERANCE_SEC}` });
  const cacheSize = o['cacheSize'] ?? 10_000;
  if (!isIntIn(cacheSize, 0, MAX_CACHE_SIZE))
    issues.push({ path: 'cacheSize', message: `expected a whole number from 0 to ${MAX_CACHE_SIZE}` });
  const maxLifetime = { pat: LIFETIMES.pat.maxSec, session: LIFETIMES.session.maxSec, component: LIFETIMES.component.maxSec };
  const given = o['maxLifetimeSec'];
  if (given !== undefined) {
    if (typeof given !== 'object' || given === null)
      issues.push({ path: 'maxLifetimeSec', message: 'expected { pat?, session?, component? } in seconds' });
    else {
      for (const [name, v] of Object.entries(given)) {
        if (!(KINDS as readonly string[]).includes(name)) issues.push({ path: `maxLifetimeSec.${name}`, message: 'unknown token kind' });
        else if (v === undefined) continue;
        else if (!isIntIn(v, 1, Number.MAX_SAFE_INTEGER))
          issues.push({ path: `maxLifetimeSec.${name}`, message: 'expected positive whole seconds' });
        else maxLifetime[name as TokenKind] = v;
      }
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    ring: o['ring'] as KeyRing,
    issuer: issuer as string,
    toleranceSec: toleranceSec as number,
    cacheSize: cacheSize as number,
    maxLifetime: Object.freeze(maxLifetime),
  };
}

function isIntIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}
