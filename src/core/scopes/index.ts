/**
 * The scopes layer: `--scope` flags and `--scopes-json` text to entries
 * (syntax), entries to validated, role-expanded, frozen scopes (meaning), and
 * back to flags. Pure and synchronous.
 * @module
 */
export { LIMITS, type Scope, type ScopeEntry, type ThingMatcher } from './types';
export { parseResource, isValidThingName, type ResourceRef } from './names';
export { checkPattern } from './pattern';
export { compileMatcherForValidNames } from './glob';
export { parseScopeFlags } from './flags';
export { parseScopesJson } from './json';
export { normalizeScopes, checkNormalizedScopes } from './normalize';
export { formatScopeFlags, isFlagExpressible } from './flags-format';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { REGEX_SOURCE, VALIDATING_SOURCE } from './glob';
export { NAME_PATTERN } from './names';
