/**
 * Contract of `auth.reportLeaked`: what it takes and what it answers.
 * @module
 */

/**
 * What became of one reported string:
 * - `revoked`: a token of this instance, active until now; this call revoked it and its subtree (T6).
 * - `inactive`: a token of this instance (its signature verified) with nothing left to revoke: already
 *   revoked (itself or an ancestor), expired, or without a record.
 * - `foreign`: not a token of this instance: malformed, longer than 8 KiB, signed by another key or
 *   a retired one, issued by another issuer.
 *
 * @example
 * ```ts
 * const report = await auth.reportLeaked([token], { source: 'support' });
 * const outcome: LeakOutcome = report.outcomes[0] ?? 'foreign';
 * const label = outcome === 'foreign' ? 'false_positive' : 'true_positive';
 * ```
 */
export type LeakOutcome = 'revoked' | 'inactive' | 'foreign';

/**
 * Options of `auth.reportLeaked`.
 *
 * @example
 * ```ts
 * const options: ReportLeakedOptions = { source: 'github', url: 'https://github.com/octo/app/blob/1a2b/config.js' };
 * ```
 */
export interface ReportLeakedOptions {
  /**
   * Who reported the tokens, carried by each `token.leaked` event: 1 to 64 characters from
   * `[A-Za-z0-9._:-]`, starting with a letter or digit (`'http'`, `'github'`, `'support:ticket-4411'`).
   */
  source: string;
  /** Where they were found, when known: at most 2 048 characters, no control characters; `''` is none. */
  url?: string;
}

/**
 * What `auth.reportLeaked` did. For the server that calls it: an HTTP endpoint open to anyone must
 * answer the same whatever was reported (see `credentialRevocationHandler`), so never send this back.
 * It holds token ids, never a token value.
 *
 * @example
 * ```ts
 * const report = await auth.reportLeaked([token], { source: 'support' });
 * console.log(`${report.revoked} of ${report.received} revoked: ${report.revokedIds.join(', ')}`);
 * ```
 */
export interface LeakReport {
  /** Strings given. */
  readonly received: number;
  /** Distinct tokens this call revoked (their descendants are not counted). */
  readonly revoked: number;
  /** `received - revoked`: repeats, tokens not of this instance, tokens with nothing left to revoke. */
  readonly ignored: number;
  /** The ids of the tokens this call revoked, in the order given (each one's `token.leaked` event lists its cascade). */
  readonly revokedIds: readonly string[];
  /** One outcome per string given, in order; a repeat has the outcome of its first occurrence. */
  readonly outcomes: readonly LeakOutcome[];
}
