/**
 * Shapes of scope entries, as a user writes them and as the library keeps them.
 * @module
 */
import type { Permission } from '../vocabulary';

/**
 * One scope entry as a user writes it (docs/concepts.md): `permissions` may hold
 * `role:<name>` shorthands, `resource` may be mixed case.
 *
 * @example
 * ```ts
 * const entry: ScopeEntry = { resource: 'acme/web', permissions: ['role:editor'], allowedMatches: ['Doc/**'] };
 * ```
 */
export interface ScopeEntry {
  /** `"<org>/<repo>"`, `"<org>"`, or omitted for the global wildcard. */
  resource?: string;
  /** Permissions, or `role:<name>` on a repo or org entry. */
  permissions: string[];
  /** Glob patterns restricting thing names; repo entries only. */
  allowedMatches?: string[];
}

/**
 * A validated scope entry: `resource` lowercased, roles expanded into plain
 * permissions (listed in {@link PERMISSIONS} order), frozen. Feeding scopes back
 * into `normalizeScopes` returns equal scopes.
 *
 * @example
 * ```ts
 * const { scopes } = normalizeScopes([{ resource: 'Acme/Web', permissions: ['role:viewer'] }]);
 * scopes[0]; // { resource: 'acme/web', permissions: ['repo:read'] }
 * ```
 */
export interface Scope {
  readonly resource?: string;
  readonly permissions: readonly Permission[];
  readonly allowedMatches?: readonly string[];
}

/** Limits of rules S6-S8, exported so that callers can validate early and document them. */
export const LIMITS = Object.freeze({
  /** Scope entries per token (S8). */
  maxEntries: 100,
  /** Patterns per `allowedMatches` (S6). */
  maxPatterns: 64,
  /** Characters per pattern (S6). */
  maxPatternLength: 256,
  /** Characters per thing name (S7). */
  maxThingNameLength: 1024,
  /** Characters per org or repo name (S7). */
  maxNameLength: 100,
  /** Token name pattern (S8). */
  tokenName: /^[A-Za-z0-9_-]{1,64}$/,
  /** Characters per description (S8). */
  maxDescriptionLength: 1024,
  /** Characters of `--scopes-json` text accepted before parsing. */
  maxScopesJsonLength: 256 * 1024,
  /** Permissions listed in one entry (the seven, plus role shorthands, with room for mistakes to be reported). */
  maxPermissionsPerEntry: 32,
  /** Characters of one `--scope` value (a resource, `=`, and the permission items with room for spaces). */
  maxScopeFlagLength: 4096,
  /** Nesting depth of `--scopes-json` (arrays and objects); a valid value needs 3. */
  maxScopesJsonDepth: 8,
});

/**
 * A compiled set of `allowedMatches` patterns: true when a thing name matches at least one.
 * Lives here, not beside the compiler, so that the compiler and its shape matchers share it without a cycle.
 *
 * @example
 * ```ts
 * const match: ThingMatcher = compileMatcherForValidNames(['Doc/**']);
 * match('Doc/a/b'); // true
 * ```
 */
export type ThingMatcher = (thingName: string) => boolean;
