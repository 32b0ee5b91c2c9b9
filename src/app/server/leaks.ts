/**
 * The reference server's credential revocation endpoint (`svc serve`):
 * `POST /api/credentials/revoke` with `{"credentials": ["<token>", ...]}`,
 * no credential needed. Whoever finds a leaked token of this instance (in a
 * log, a paste, a commit) kills it here; the answer is 202 whatever was sent,
 * so the endpoint tells nobody whether a token exists. It is no management
 * endpoint: it can only revoke, and only a token its caller already holds.
 * Its rate limit counts the client `allowedIps` sees: behind `--trust-proxy`
 * (the `Auth`'s `trustProxy`), the client the proxy names, not the proxy.
 *
 * GitHub's secret scanning endpoint is not mounted: GitHub can only reach a
 * public server, and its keys come from api.github.com. Mounting it on your
 * own server is one more exact path, as below (docs/leaks.md):
 *
 *     const github = githubSecretScanningHandler(auth, { tokenTypes: ['acme_svc_pat'] });
 *     routes: { '/hooks/github/secret-scanning': async (req, res) => { await github.node(req, res); return { reason: 'github' }; } }
 * @module
 */
import type { Auth } from 'svc-auth';
import { credentialRevocationHandler } from 'svc-auth/leaks';
import type { PathHandler } from './types';

/**
 * The path of the credential revocation endpoint (GitHub's own API uses `/credentials/revoke`).
 *
 * @example
 * ```ts
 * await fetch(`${baseUrl}${REVOKE_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ credentials: [leaked] }) });
 * ```
 */
const REVOKE_PATH = '/api/credentials/revoke';

/**
 * The server's leak handlers by exact path. Each request is logged as `reason=revoke` (the access
 * log never learns what was reported: the answer does not depend on it either).
 *
 * @example
 * ```ts
 * const exact = { ...leakRoutes({ auth }) }; // { '/api/credentials/revoke': … }
 * ```
 */
export function leakRoutes(options: { auth: Auth }): Record<string, PathHandler> {
  const revoke = credentialRevocationHandler(options.auth);
  return {
    [REVOKE_PATH]: async (req, res) => {
      await revoke.node(req, res);
      return { reason: 'revoke' };
    },
  };
}
