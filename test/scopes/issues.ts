import { expect } from 'vitest';
import { ValidationError, type ValidationIssue } from '../../src/errors';

/** The issues of the ValidationError that `fn` throws; fails the test if it throws nothing or something else. */
export function issuesOf(fn: () => unknown): readonly ValidationIssue[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('validation');
    return (err as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

/** The issue paths of the ValidationError that `fn` throws. */
export const paths = (fn: () => unknown): string[] => issuesOf(fn).map((i) => i.pathText);
