/**
 * `svc proof`: a DPoP proof (RFC 9449) for one request, printed as the header
 * curl sends beside a key-bound token.
 * @module
 */
import { AuthenticationError, ValidationError, type IssueInput } from '../../../errors';
import { isNonceText } from '../../../tokens';
import { defineCommand } from '../command';
import { keyOfToken, proofKey, readJwkFile, signProof } from '../proof-key';

const PROOF_HELP = `Usage: svc proof --method <method> --url <url> [--token <token>] [--key <file>]
                 [--nonce <nonce>]

Print a DPoP proof header for one request with a key-bound token (made by
'svc token create --bind-key'), on one line:
  DPoP: eyJ0eXAiOiJkcG9wK2p3dCIs...
Send it with the token under the DPoP scheme; a proof is good for one request,
to that method and URL, for a few minutes:
  curl -H "Authorization: DPoP $SVC_TOKEN" \\
       -H "$(svc proof --method GET --url http://127.0.0.1:8080/api/whoami)" \\
       http://127.0.0.1:8080/api/whoami

A server started with 'svc serve --dpop-nonce' (or any resource that hands out
nonces) answers a proof without its nonce with 401 'error="use_dpop_nonce"'
and the nonce in a DPoP-Nonce header: sign again with --nonce=<that value>
(with '=': a nonce may begin with '-').

The token (--token, else SVC_TOKEN) goes into the proof as its hash (ath). The
key is --key (a private JWK file), else the file SVC_TOKEN_KEY names, else the
key 'svc token create --bind-key' kept in SVC_HOME/keys for the token.

Options:
      --method <method>   the request's method, as sent (GET, POST, ...) (required)
      --url <url>         the request's URL, as the server is reached (required)
      --token <token>     the bound token (default: SVC_TOKEN)
      --key <file>        the private key (a JWK file) to sign with
      --nonce <nonce>     the server's nonce (its DPoP-Nonce header)
  -h, --help              show this help
`;

/** `svc proof`. */
export const proofCommand = defineCommand({
  name: 'proof',
  summary: 'print a DPoP proof header for a request with a key-bound token',
  help: PROOF_HELP,
  flags: {
    method: { type: 'string', required: true },
    url: { type: 'string', required: true },
    token: { type: 'string' },
    key: { type: 'string' },
    nonce: { type: 'string' },
  },
  needs: 'instance',
  input(flags) {
    const issues: IssueInput[] = [];
    if (!/^[A-Za-z]{1,32}$/.test(flags.method)) issues.push({ path: '--method', message: 'expected an HTTP method such as GET' });
    let url: URL | undefined;
    try {
      url = new URL(flags.url);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      issues.push({ path: '--url', message: 'expected an absolute http(s) URL' });
    }
    if (flags.nonce !== undefined && !isNonceText(flags.nonce)) {
      issues.push({
        path: '--nonce',
        message: 'expected the DPoP-Nonce value as given: 1 to 256 printable characters, no quote or backslash',
      });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    return { method: flags.method, url: (url as URL).href, nonce: flags.nonce };
  },
  async run({ flags, input: { method, url, nonce }, dev, io }) {
    const fromEnv = io.env.SVC_TOKEN;
    const token = flags.token ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv.trim());
    const key =
      flags.key !== undefined
        ? await proofKey(await readJwkFile(flags.key, '--key'), '--key')
        : token !== undefined
          ? await keyOfToken(io.env, dev, token)
          : io.env.SVC_TOKEN_KEY !== undefined && io.env.SVC_TOKEN_KEY !== ''
            ? await proofKey(await readJwkFile(io.env.SVC_TOKEN_KEY, 'SVC_TOKEN_KEY'), 'SVC_TOKEN_KEY')
            : undefined;
    if (key === undefined) {
      throw new AuthenticationError(
        'bound',
        token === undefined
          ? 'no key to sign with: give --key or set SVC_TOKEN_KEY'
          : 'no key found for the token: give --key or set SVC_TOKEN_KEY (a token bound to no key is sent as a Bearer token)',
      );
    }
    io.stdout(`DPoP: ${await signProof(key, { method, url, token, nonce })}\n`);
    return 0;
  },
});
