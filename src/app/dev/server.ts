/**
 * The reference server on the dev instance (`svc serve`): the instance in
 * `SVC_HOME` builds what the server is handed (its `Auth`, its file of things,
 * a log that also hears the instance's notices, its authorization server) and
 * releases what it opened.
 *
 * The authorization server's issuer is the server's own base URL, known only
 * once the port is bound (`--port 0` picks one): so `listen` binds first, then
 * builds the authorization server and the routes that mount it, on the same
 * node:http server, and hands its requests to those routes. The routes built
 * before listening (without OAuth) check the options early and serve when
 * OAuth cannot be loaded. One node:http server, built once.
 * @module
 */
import { createAuthorizationServer, trustedIssuerFor, type AuthorizationServer } from '../../oauth';
import { UnavailableError } from '../../errors';
import { createReferenceServer, type PathHandler, type ReferenceServer } from '../server';
import { openInstance, type CliEnv, type DevInstance } from './instance';
import { FileThingStore } from './things';
import { startSweeper, type ExpirySweep, type Sweeper } from './sweeper';

/**
 * Options of {@link createDevServer}.
 *
 * @example
 * ```ts
 * const options: DevServerOptions = { env: { SVC_HOME: '/tmp/svc' }, log: (line) => console.error(line) };
 * ```
 */
export interface DevServerOptions {
  /** An opened instance to serve; it stays open on `close()`. Default: open one from `env`. */
  instance?: DevInstance;
  /** Environment for opening the instance (`SVC_HOME`, ...). Default `{}` (so `~/.svc`). */
  env?: CliEnv;
  /** Receives one line per request (method, path, status, user, token name, decision). Default: none. */
  log?: (line: string) => void;
  /** More handlers by exact path, tried before the built-in routes. */
  routes?: Record<string, PathHandler>;
  /** Browser origins that may call `/mcp` besides the server's own; any other `Origin` gets 403. Default none. */
  allowedOrigins?: readonly string[];
  /** The version `/mcp` tells MCP clients (`svc serve`: the package's). */
  version?: string;
  /** Run the authorization server (`svc-auth/oauth`, issuer = the base URL). Default `true`. */
  oauth?: boolean;
  /**
   * The expiry sweep while the server listens (`auth.sweepExpiring`, each
   * warning a log line), or `false` for none. Default: every hour, warning
   * 7 days and 1 day before expiry.
   */
  expirySweep?: ExpirySweep | false;
}

/** `svc serve`'s default: an hourly sweep warning a week and a day ahead. */
const DEFAULT_SWEEP: ExpirySweep = { intervalMs: 3_600_000, within: ['7d', '1d'] };

/** The dev instance's authorization server at `issuer`, or `undefined` (said in the log) when oidc-provider cannot be loaded. */
async function devAuthorizationServer(
  dev: DevInstance,
  issuer: string,
  log: ((line: string) => void) | undefined,
): Promise<AuthorizationServer | undefined> {
  try {
    return await createAuthorizationServer({
      auth: dev.auth,
      issuer,
      // A dev instance: whoever reaches the page picks a member (no password), as `svc auth login --user` does.
      signIn: { users: async () => [...new Set((await dev.members.list()).map((m) => m.user))].sort() },
      storage: await dev.oauthStorage(),
      // `svc auth login` signs in as the first-party client `svc-cli` (device flow, tokens without scope).
      clients: { metadataDocuments: { allowLoopback: true }, cli: true },
      log: (line) => log?.(`svc: ${line}`),
    });
  } catch (err) {
    if (!(err instanceof UnavailableError) || !/oidc-provider|Node\.js/.test(err.message)) throw err;
    log?.(`svc: OAuth is off: ${err.message}; MCP clients need a PAT (Authorization: Bearer)`);
    return undefined;
  }
}

/**
 * The reference server over the dev instance, built but not yet listening;
 * `close()` also releases the instance when this call opened it.
 *
 * @throws UnavailableError when the instance cannot be opened.
 * @throws ValidationError when an allowed origin is not an http(s) origin.
 * @example
 * ```ts
 * const dev = await createDevServer({ env: process.env, log: (l) => process.stderr.write(`${l}\n`) });
 * console.log(`listening on ${await dev.listen({ port: 0 })}`);
 * ```
 */
export async function createDevServer(options: DevServerOptions = {}): Promise<ReferenceServer> {
  const { log, instance } = options;
  // A home tightened on start is said in the log, as the other commands say it on stderr.
  const dev = instance ?? (await openInstance(options.env ?? {}, { notice: (text) => log?.(`svc: ${text}`) }));
  const parts = {
    auth: dev.auth,
    things: new FileThingStore(dev.home),
    log,
    routes: options.routes,
    allowedOrigins: options.allowedOrigins,
    version: options.version,
  };
  let server: ReferenceServer;
  try {
    server = createReferenceServer(parts);
  } catch (err) {
    // A bad --allow-origin: refused before listening, without keeping the instance open.
    if (instance === undefined) await dev.close();
    throw err;
  }
  const sweep = options.expirySweep ?? DEFAULT_SWEEP;
  let sweeper: Sweeper | undefined;
  const release = async (): Promise<void> => {
    // The sweep first: a sweep in progress finishes before the store it writes is closed.
    await sweeper?.stop();
    await server.close();
    if (instance === undefined) await dev.close();
  };
  // The routes that answer now: the plain ones, then those that mount the authorization server.
  let serving = server;
  return {
    server: server.server,
    get handle() {
      return serving.handle;
    },
    async listen(at) {
      const url = await server.listen(at);
      if (sweep !== false && sweeper === undefined) sweeper = startSweeper(dev.auth, sweep, (line) => log?.(line));
      if (options.oauth === false) return url;
      let oauth: AuthorizationServer | undefined;
      try {
        oauth = await devAuthorizationServer(dev, url, log);
      } catch (err) {
        await sweeper?.stop();
        await server.close();
        throw err;
      }
      if (oauth !== undefined) {
        // Its tokens are sessions here (T10), each for one resource: `<base>` for /api, `<base>/mcp` for /mcp.
        // Its keys are handed over in process: the server never fetches its own JWKS over HTTP.
        const jwks = oauth.publicJwks();
        serving = createReferenceServer({
          ...parts,
          auth: dev.authTrusting([trustedIssuerFor({ issuer: url, resource: url, jwks })]),
          mcpAuth: dev.authTrusting([trustedIssuerFor({ issuer: url, resource: `${url}/mcp`, jwks })]),
          oauth,
          // The same node:http server, bound already: its routes change, its socket and limits stay.
          server: server.server,
        });
        // In one turn with the line above: no request sees both routes, or neither.
        server.server.off('request', server.handle);
      }
      return url;
    },
    close: release,
  };
}
