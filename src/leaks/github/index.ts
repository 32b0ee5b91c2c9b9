/**
 * GitHub's secret scanning partner program: the endpoint GitHub calls with
 * the tokens it finds in public, and the keys it signs them with.
 * @module
 */
export { githubSecretScanningHandler, type GitHubSecretScanningHandler } from './handler';
export type { GitHubSecretScanningOptions } from './options';
export { GITHUB_SECRET_SCANNING_KEYS_URL, type GitHubPublicKeys } from './keys';
export type { GitHubFeedback } from './matches';
