/**
 * The safe glob subset of rule S6: a matcher compiled from thing-name
 * patterns, with no backtracking regex (see matcher.ts).
 * @module
 */
export { compileMatcherForValidNames, checkPattern } from './matcher';

/** @internal for the scopes folder (which imports this folder through its index); the package root decides what is public. */
export { REGEX_SOURCE, VALIDATING_SOURCE } from './fast-paths';
