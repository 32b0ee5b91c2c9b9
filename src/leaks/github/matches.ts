/**
 * The body GitHub sends (`[{ "token", "type", "url", "source" }]`, one object
 * per match) and the feedback it accepts in return
 * (`[{ "token_hash" | "token_raw", "token_type", "label" }]`, `label`
 * `true_positive` or `false_positive`).
 * @module
 */
import { createHash } from 'node:crypto';
import type { IssueInput } from '../../errors';
import { isPlainObject } from '../../core/vocabulary';
import type { LeakOutcome } from '../../service';

/** @internal one match, as checked. */
export interface Match {
  readonly token: string;
  readonly type: string;
  /** Where GitHub found it; `undefined` when empty or not usable as an event's url. */
  readonly url: string | undefined;
}

/** Most matches one request may carry: GitHub batches, and 10 000 is far past what a 4 MiB body holds. */
const MAX_MATCHES = 10_000;
const MAX_TYPE = 256;
const MAX_URL = 2_048;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * @internal the matches of a verified body, or the issues that refuse it. Keys GitHub may add
 * later are ignored; the documented ones must have their documented types.
 */
export function parseMatches(value: unknown): { matches: Match[] } | { issues: IssueInput[] } {
  if (!Array.isArray(value)) return { issues: [{ code: 'invalid_type', path: 'body', message: 'expected a JSON array of matches' }] };
  if (value.length > MAX_MATCHES) return { issues: [{ code: 'too_big', path: 'body', message: `more than ${MAX_MATCHES} matches` }] };
  const out: Match[] = [];
  for (const [i, m] of value.entries()) {
    if (!isPlainObject(m))
      return { issues: [{ code: 'invalid_type', path: ['body', i], message: 'expected { token, type, url, source }' }] };
    const { token, type, url, source } = m;
    if (typeof token !== 'string') return { issues: [{ code: 'invalid_type', path: ['body', i, 'token'], message: 'must be a string' }] };
    if (typeof type !== 'string' || type.length > MAX_TYPE)
      return {
        issues: [{ code: 'invalid_type', path: ['body', i, 'type'], message: `must be a string of at most ${MAX_TYPE} characters` }],
      };
    if (url !== undefined && url !== null && typeof url !== 'string')
      return { issues: [{ code: 'invalid_type', path: ['body', i, 'url'], message: 'must be a string' }] };
    if (source !== undefined && source !== null && typeof source !== 'string')
      return { issues: [{ code: 'invalid_type', path: ['body', i, 'source'], message: 'must be a string' }] };
    // GitHub says the url may be empty; one no event can carry is dropped, never the match.
    const usable = typeof url === 'string' && url !== '' && url.length <= MAX_URL && !CONTROL.test(url);
    out.push({ token, type, url: usable ? url : undefined });
  }
  return { matches: out };
}

/**
 * How the answer names each token: `token_hash` (the SHA-256 of the token, in hex) sends GitHub
 * nothing it did not already hold in a form it could reuse; `token_raw` echoes the token as GitHub
 * sent it.
 *
 * @example
 * ```ts
 * const feedback: GitHubFeedback = 'token_hash';
 * ```
 */
export type GitHubFeedback = 'token_hash' | 'token_raw';

/** @internal one feedback entry per match, in order. */
export function feedbackOf(matches: readonly Match[], outcomes: readonly LeakOutcome[], form: GitHubFeedback): Record<string, string>[] {
  return matches.map((m, i) => {
    // Ours (active, revoked or expired) is a real credential found in public: a true positive.
    const label = outcomes[i] === 'foreign' || outcomes[i] === undefined ? 'false_positive' : 'true_positive';
    const named: Record<string, string> =
      form === 'token_raw' ? { token_raw: m.token } : { token_hash: createHash('sha256').update(m.token, 'utf8').digest('hex') };
    return { ...named, token_type: m.type, label };
  });
}
