/**
 * `svc serve`: run the reference dev server until SIGINT or SIGTERM.
 * @module
 */
import { ValidationError, type IssueInput } from '../../../../errors';
import { checkRanges } from '../../../../core/network';
import { defineCommand } from '../../command';
import { createDevServer, recordServe } from '../../../dev';
import { packageVersion } from '../../version';
import { asFlagError, collect, RANGES, sweepFlags, trustFlags, workloadsFile } from './flags';

const SERVE_HELP = `Usage: svc serve [--host 127.0.0.1] [--port 8080] [--allow-origin <origin>]...
                 [--trust-issuer <url> --audience <aud>]... [--trust-proxy <cidr>]...
                 [--trust-workloads <file.json>] [--dpop-nonce]
                 [--sweep-every <N>m|<N>h|off] [--warn-before <N>d]...
                 [--keep-sessions <N>d|forever]

Run the reference HTTP server on the dev instance (the same SVC_HOME as the
other commands). Once it listens it prints two lines on stdout: the base URL
alone (for scripts), then a notice:
  http://127.0.0.1:8080
  listening on http://127.0.0.1:8080
While it runs, the URL is also recorded in SVC_HOME/serve.json (removed when
it stops), where 'svc auth login' finds the server.
and then one line per request on stderr (method, path, status, user, token
name, decision; never a token). Stop it with Ctrl-C (SIGINT) or SIGTERM.

Endpoints (send 'Authorization: Bearer <token>'):
  GET /api/whoami                                   who the token is
  GET /api/repos/<org>/<repo>/head                  needs repo:read
  GET /api/repos/<org>/<repo>/things/<Type>/<name>  needs repo:read on the thing
  PUT /api/repos/<org>/<repo>/things/<Type>/<name>  needs repo:write on the thing;
      body {"content": <any JSON>, "committer": "<identity wref>"?}
  POST /mcp                                         MCP (Streamable HTTP, stateless): tools whoami,
      repo_head, thing_get, thing_put; a read-only token sees no thing_put
  GET /.well-known/oauth-protected-resource/mcp     its RFC 9728 metadata (no credential)
  POST /api/credentials/revoke                      revoke leaked tokens (no credential);
      body {"credentials": ["<token>", ...]}, answer 202 whatever was sent

It is also an OAuth 2.1 authorization server for MCP clients and command
lines (issuer = the base URL; needs the optional package oidc-provider, else
it says "OAuth is off" on stderr and serves PATs only):
  GET /.well-known/oauth-authorization-server       RFC 8414 metadata
  /oauth/register, /oauth/authorize, /oauth/token, /oauth/revoke,
  /oauth/device_authorization, /oauth/device        DCR, code flow with PKCE,
      refresh, revocation, device flow; sign-in picks a member (dev only: no
      password); state in SVC_HOME/oauth.json
The command line's own client, svc-cli ('svc auth login'), gets tokens with
full access as the user (no scope; the consent page says so); every other
client's tokens are limited to the permissions approved.

A request to /mcp with an Origin header (a browser) is refused with 403
unless that origin is the server's own or given with --allow-origin: a web
page cannot reach the endpoint through DNS rebinding. Clients that are not
browsers send no Origin and are not affected.

With --trust-issuer, the server also accepts JWT access tokens of that
identity provider (an OAuth 2.0 / OpenID Connect server) as sessions of
their user: 'iss' must be the URL exactly, 'aud' must contain the --audience
given with it, and its keys are found by discovery. Give --audience once per
--trust-issuer, in the same order. The user id is the issuer's host, port and
path, '_', then the 'sub' claim (https://sso.example.com/realms/acme and sub
alice: sso.example.com-realms-acme_alice), since 'sub' is unique per issuer
only. Roles come from 'svc member set' under that id, as for any user.

With --trust-workloads, CI jobs and other workloads sign in with their own
identity token (GitHub Actions, GitLab CI, Kubernetes), with no stored
secret: the file holds the list createAuth's trustedWorkloads option takes,
[{"issuer": "...", "audience": "...", "rules": [{"claims": {...},
"serviceAccount": "<org>/<name>", "scopes": [...]?, "expiresIn": "15m"?}]}].
A token whose claims match a rule exactly is exchanged, once, for a token of
that service account ('svc auth login --workload-token', or the jwt-bearer
grant at /oauth/token with client_id svc-workload).

With --dpop-nonce, a DPoP proof at /api and /mcp must carry a nonce of
this server (RFC 9449 section 9): a proof without one is answered 401
'error="use_dpop_nonce"' with the nonce in a DPoP-Nonce header, and a client
signs its proof again with it ('svc proof --nonce'); every answer to a DPoP
request carries the current nonce. A nonce is taken for one to two minutes,
by every server on this SVC_HOME. A proof signed ahead of time (by someone
who held the key for a while) is then useless once its nonce has passed.

Behind a reverse proxy, --trust-proxy names it: its X-Forwarded-For is then
read (from the right) for the client address that --allow-ip limits and
'svc token get' shows. From any other peer the header is ignored.

While it runs, the server warns about tokens that expire soon: once when it
starts and then every --sweep-every, each token expiring within a
--warn-before threshold gets one line on stderr, once per threshold (the
mark is kept with the token, so a restart or a second server on the same
SVC_HOME does not repeat it):
  svc: token 'ci' of alice expires 2030-01-03T00:00:00.000Z (within 7 days)
On the same timer it removes the records of sessions (sign-ins, OAuth grants
and their access tokens) that expired or were revoked more than
--keep-sessions ago, so that sign-ins do not add records forever; PATs are
kept for audit:
  svc: removed 12 records of sessions ended more than 90d ago

Options:
      --host <host>            address to listen on (default 127.0.0.1)
  -p, --port <port>            port, 0 for a free one (default 8080)
      --allow-origin <origin>  a browser origin allowed to call /mcp, such as
                               http://localhost:6274 (repeatable)
      --trust-issuer <url>     accept this identity provider's access tokens
                               (https, or http on localhost; repeatable)
      --audience <aud>         the audience its tokens must name: one for
                               each issuer, in the same order (repeatable)
      --trust-proxy <cidr>     a reverse proxy (address or range) whose
                               X-Forwarded-For is believed (repeatable)
      --trust-workloads <file> workload identity issuers and their rules
                               (a JSON list, at most 64 KiB)
      --dpop-nonce             require this server's nonce in DPoP proofs
      --sweep-every <interval> how often to look for expiring tokens: <N>m
                               or <N>h, 1m to 24h, or off (default 60m)
      --warn-before <N>d       a warning threshold, 1d to 365d (repeatable;
                               default 7d and 1d)
      --keep-sessions <N>d     how long ended sessions' records are kept,
                               1d to 3650d, or forever (default 90d)
  -h, --help                   show this help
`;

/** `svc serve`. */
export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'run the reference HTTP server on the dev instance',
  help: SERVE_HELP,
  flags: {
    host: { type: 'string' },
    port: { type: 'string', short: 'p' },
    'allow-origin': { type: 'string', multiple: true },
    'trust-issuer': { type: 'string', multiple: true },
    audience: { type: 'string', multiple: true },
    'trust-proxy': { type: 'string', multiple: true },
    'trust-workloads': { type: 'string' },
    'dpop-nonce': { type: 'boolean' },
    'sweep-every': { type: 'string' },
    'warn-before': { type: 'string', multiple: true },
    'keep-sessions': { type: 'string' },
  },
  needs: 'instance',
  input: (flags) => {
    const { port = '8080', 'trust-issuer': issuers = [], audience = [] } = flags;
    const issues: IssueInput[] = [];
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
      issues.push({ path: '--port', message: 'expected a port number from 0 to 65535 (0 picks a free one)' });
    }
    const trustedIssuers = trustFlags(issuers, audience, issues);
    const trustProxy = collect(issues, () => (flags['trust-proxy'] === undefined ? [] : checkRanges(flags['trust-proxy'], RANGES)));
    const trustedWorkloads = flags['trust-workloads'] === undefined ? undefined : workloadsFile(flags['trust-workloads'], issues);
    const sweep = sweepFlags(flags['sweep-every'], flags['warn-before'], issues);
    const keep = flags['keep-sessions'] ?? '90d';
    if (keep !== 'forever' && !(/^[1-9][0-9]{0,3}d$/.test(keep) && Number(keep.slice(0, -1)) <= 3650)) {
      issues.push({ path: '--keep-sessions', message: 'expected <N>d from 1d to 3650d, or forever' });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    const purgeOlderThan: string | false = keep === 'forever' ? false : keep;
    return {
      port: Number(port),
      trustedIssuers,
      trustProxy: trustProxy ?? [],
      trustedWorkloads,
      dpopNonce: flags['dpop-nonce'] === true,
      sweep: sweep === false ? sweep : { ...sweep, purgeOlderThan },
    };
  },
  open: ({ trustedIssuers, trustProxy, trustedWorkloads, dpopNonce }) => ({
    ...(trustedIssuers.length === 0 ? {} : { trustedIssuers }),
    ...(trustProxy.length === 0 ? {} : { trustProxy }),
    ...(trustedWorkloads === undefined ? {} : { trustedWorkloads }),
    ...(dpopNonce ? { dpopNonce } : {}),
  }),
  async run({ flags: { host = '127.0.0.1', 'allow-origin': origins }, input: { port, sweep }, dev, io }) {
    const server = await createDevServer({
      instance: dev,
      log: (line) => io.stderr(`${line}\n`),
      version: packageVersion(),
      expirySweep: sweep,
      ...(origins === undefined ? {} : { allowedOrigins: origins }),
    }).catch((err: unknown) => {
      throw asFlagError(err);
    });
    let url: string;
    try {
      url = await server.listen({ host, port });
    } catch (err) {
      await server.close();
      throw err;
    }
    // Listening for the stop signals before anything announces the server: a script that reads the URL
    // and stops the server at once must get a clean stop (the record removed), not the default death.
    const stopped = new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    // Recorded before the URL is printed: a script that reads the URL and runs `svc auth login` finds it.
    const forget = await recordServe(dev.home, url).catch((err: unknown) => {
      io.stderr(
        `svc: note: could not record the URL in SVC_HOME/serve.json (${err instanceof Error ? err.message : 'unknown'}); 'svc auth login' needs --server\n`,
      );
      return () => Promise.resolve();
    });
    // The bare URL comes first and alone on its line (DESIGN: scripts read it), then the notice for people.
    io.stdout(`${url}\nlistening on ${url}\n`);
    await stopped;
    // The record goes first: from the moment the server stops, 'svc auth login' must not be sent to it,
    // and a failure while closing must not leave the record behind.
    await forget().catch(() => undefined);
    await server.close();
    io.stderr('svc: server stopped\n');
    return 0;
  },
});
