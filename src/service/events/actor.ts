/**
 * Who acted, in every audit event (types.ts, org-types.ts).
 * @module
 */

/**
 * Who acted. `server` is code calling `auth.revokeToken`,
 * `auth.issueComponentToken` or `auth.issueSession`; `unknown` is a credential
 * whose signature did not verify (nothing about it can be trusted).
 *
 * @example
 * ```ts
 * const actor: EventActor = { kind: 'pat', userId: 'alice', tokenId: 'q0Zr…', tokenName: 'ci' };
 * ```
 */
export interface EventActor {
  readonly kind: 'session' | 'pat' | 'component' | 'server' | 'unknown';
  readonly userId: string | null;
  readonly tokenId: string | null;
  readonly tokenName: string | null;
}
