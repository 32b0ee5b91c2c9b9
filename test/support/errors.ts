/**
 * The one way tests get hold of an error: `caught` for a throw, `rejection`
 * for a promise, `issuesOf` for the issues of a ValidationError. Each fails the
 * test when nothing is thrown, so an assertion on the result can never pass
 * vacuously.
 */
import { expect } from 'vitest';
import { ValidationError, type ValidationIssue } from '../../src/errors';

/** What `fn` throws; fails the test when it returns. */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

/**
 * The rejection reason of `p` (or of the promise `p()` returns, or what `p()`
 * throws); fails the test when it resolves.
 */
export async function rejection(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/**
 * The issues of a ValidationError: of `err` itself, or of the error `fn`
 * throws. Asserts the class and the `validation` code; fails the test when
 * `fn` throws nothing.
 */
export function issuesOf(errOrFn: unknown): readonly ValidationIssue[] {
  const err = typeof errOrFn === 'function' ? caught(errOrFn as () => unknown) : errOrFn;
  expect(err).toBeInstanceOf(ValidationError);
  expect((err as ValidationError).code).toBe('validation');
  return (err as ValidationError).issues;
}

/** The `pathText` of every issue of the ValidationError (see {@link issuesOf}). */
export const pathsOf = (errOrFn: unknown): string[] => issuesOf(errOrFn).map((i) => i.pathText);
