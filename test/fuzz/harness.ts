/**
 * Shared by the fuzz campaign (test/fuzz): how many cases, and the invariants
 * every entry point keeps on hostile input: a typed `SvcAuthError` or an
 * answer, never a raw `TypeError`; no prototype pollution.
 *
 * CI runs a short campaign (FUZZ_RUNS unset: 300 cases per target);
 * `npm run fuzz` runs 100 000 per target (FUZZ_RUNS=100000).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { SvcAuthError } from '../../src/errors';

function runs(): number {
  const v = Number(process.env.FUZZ_RUNS ?? '');
  return Number.isSafeInteger(v) && v > 0 ? v : 300;
}

/** Cases per target. */
export const RUNS = runs();

/** A test timeout that grows with the campaign. */
export const TIMEOUT = Math.max(60_000, RUNS * 5);

/** fast-check parameters; a fixed seed can be given with FUZZ_SEED to replay a failure. */
export const PARAMS: fc.Parameters<unknown> = {
  numRuns: RUNS,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
};

const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

/** Fails when anything was added to `Object.prototype` (or `{}` grew a property). */
export function expectNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort().join(',')).toBe(PROTO_NAMES);
  const probe: Record<string, unknown> = {};
  for (const k of ['polluted', 'admin', 'isAdmin', 'allowed', 'permissions', 'resource']) expect(probe[k]).toBeUndefined();
}

/** Run `fn`; a typed error is fine, anything else thrown fails the property. */
export function typedOrValue<T>(fn: () => T): T | SvcAuthError {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SvcAuthError) return err;
    throw err;
  }
}

/** Await `p`; a typed error is fine, anything else fails the property. */
export async function typedOrValueAsync<T>(p: () => Promise<T>): Promise<T | SvcAuthError> {
  try {
    return await p();
  } catch (err) {
    if (err instanceof SvcAuthError) return err;
    throw err;
  }
}

/** Strings a hostile user tries: pieces of the grammar, prototype keys, controls, long runs. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'role:owner',
    'role:__proto__',
    'repo:read',
    'org:admin',
    'acme',
    'acme/web',
    '*',
    '**',
    '=',
    ',',
    'acme/web=repo:read',
    'acme=role:admin',
    '{a,b}',
    '!(x)',
    '[a-z]',
    '\u0000',
    '\ud800',
    '\u202e',
    'a'.repeat(300),
    '%2E',
    'eyJ',
    '--',
    '-n',
  ),
  fc
    .array(
      fc.constantFrom('acme', '/', 'web', '=', 'repo:read', ',', 'role:', 'editor', ' ', '*', '?', '**', 'Doc', '.', '..', '__proto__'),
      { maxLength: 12 },
    )
    .map((a) => a.join('')),
);
