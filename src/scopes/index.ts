/**
 * The scopes layer: `--scope` flags and `--scopes-json` text to entries
 * (syntax), entries to validated, role-expanded, frozen scopes (meaning), and
 * back to flags. Pure and synchronous.
 * @module
 */
export { LIMITS, type Scope, type ScopeEntry } from './types';
export { NAME_PATTERN, parseResource, isValidThingName, type ResourceRef } from './names';
export { checkPattern } from './pattern';
export { compileMatcher, type ThingMatcher } from './glob';
export { parseScopeFlags } from './flags';
export { parseScopesJson } from './json';
export { normalizeScopes } from './normalize';
export { formatScopeFlags, isFlagExpressible } from './format';
