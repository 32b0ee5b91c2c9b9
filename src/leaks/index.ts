/**
 * Leaked tokens over HTTP (layer 8, beside the framework adapters and mcp):
 * the credential revocation endpoint anyone may call with a token they found,
 * and the endpoint GitHub's secret scanning partner program calls. Both are
 * thin over `auth.reportLeaked` (service/leaks), in a node:http and a fetch
 * form, answering every refusal in the H2 JSON shape.
 * @module
 */
export { credentialRevocationHandler, type CredentialRevocationHandler, type CredentialRevocationOptions } from './revocation';
export type { RevocationRateLimit } from './rate-limit';
export {
  githubSecretScanningHandler,
  GITHUB_SECRET_SCANNING_KEYS_URL,
  type GitHubSecretScanningHandler,
  type GitHubSecretScanningOptions,
  type GitHubPublicKeys,
  type GitHubFeedback,
} from './github';
