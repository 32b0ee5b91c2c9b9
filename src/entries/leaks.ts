/**
 * `svc-auth/leaks`: the HTTP endpoints that revoke a leaked token, for a
 * service that lets anyone report a token they found, or that joins GitHub's
 * secret scanning partner program. Both are thin over `auth.reportLeaked`,
 * which stays on `Auth` (its report, `LeakReport`, is also exported by the
 * root; its options and outcome are here). Each handler has a node:http form and a fetch form.
 *
 * @example
 * ```ts
 * import { credentialRevocationHandler, githubSecretScanningHandler } from 'svc-auth/leaks';
 * const revoke = credentialRevocationHandler(auth); // POST /api/credentials/revoke
 * const github = githubSecretScanningHandler(auth, { tokenTypes: ['acme_svc_pat'] }); // GitHub's secret scanning calls it
 * ```
 * @module
 */
export {
  credentialRevocationHandler,
  githubSecretScanningHandler,
  GITHUB_SECRET_SCANNING_KEYS_URL,
  type CredentialRevocationHandler,
  type CredentialRevocationOptions,
  type RevocationRateLimit,
  type GitHubSecretScanningHandler,
  type GitHubSecretScanningOptions,
  type GitHubPublicKeys,
  type GitHubFeedback,
} from '../leaks';
export type { LeakOutcome, ReportLeakedOptions } from '../service';
