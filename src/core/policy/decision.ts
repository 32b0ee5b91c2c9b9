/**
 * Decisions are frozen constants: `authorize` returns one of five objects, or
 * a grant's own frozen `policy` decision built with the grant, and allocates
 * nothing.
 * @module
 */

/**
 * Why a request was denied (A1): malformed input, the user's role, an org's
 * policy (G2), the token's scopes, or the thing name.
 */
export type DenyReason = 'invalid' | 'role' | 'policy' | 'scope' | 'thing';

/**
 * The answer of `authorize`.
 *
 * @example
 * ```ts
 * const d = authorize(grant, 'acme/web', 'repo:write', 'Doc/readme');
 * if (!d.allowed) console.log(d.reason); // 'role' | 'policy' | 'scope' | 'thing' | 'invalid'
 * ```
 */
export type Decision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly reason: DenyReason;
      /** With reason `policy`: which org refused, which limit, and the fix, in words for the token's holder. */
      readonly message?: string;
    };

/** The allow decision. */
export const ALLOW: Decision = Object.freeze({ allowed: true as const });
/** Malformed input. */
export const DENY_INVALID: Decision = Object.freeze({ allowed: false as const, reason: 'invalid' as const });
/** Outside the user's role. */
export const DENY_ROLE: Decision = Object.freeze({ allowed: false as const, reason: 'role' as const });
/** Outside the token's scopes. */
export const DENY_SCOPE: Decision = Object.freeze({ allowed: false as const, reason: 'scope' as const });
/** The thing name is not allowed by `allowedMatches`. */
export const DENY_THING: Decision = Object.freeze({ allowed: false as const, reason: 'thing' as const });
