/**
 * The reference server on the dev instance (`svc serve`): the instance in
 * `SVC_HOME` builds what the server is handed (its `Auth`, its file of things,
 * a log that also hears the instance's notices) and releases what it opened.
 * @module
 */
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
  /**
   * The expiry sweep while the server listens (`auth.sweepExpiring`, each
   * warning a log line), or `false` for none. Default: every hour, warning
   * 7 days and 1 day before expiry.
   */
  expirySweep?: ExpirySweep | false;
}

/** `svc serve`'s default: an hourly sweep warning a week and a day ahead. */
const DEFAULT_SWEEP: ExpirySweep = { intervalMs: 3_600_000, within: ['7d', '1d'] };

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
  let server: ReferenceServer;
  try {
    server = createReferenceServer({
      auth: dev.auth,
      things: new FileThingStore(dev.home),
      log,
      routes: options.routes,
      allowedOrigins: options.allowedOrigins,
      version: options.version,
    });
  } catch (err) {
    // A bad --allow-origin: refused before listening, without keeping the instance open.
    if (instance === undefined) await dev.close();
    throw err;
  }
  const sweep = options.expirySweep ?? DEFAULT_SWEEP;
  let sweeper: Sweeper | undefined;
  return {
    server: server.server,
    async listen(at) {
      const url = await server.listen(at);
      if (sweep !== false && sweeper === undefined) sweeper = startSweeper(dev.auth, sweep, (line) => log?.(line));
      return url;
    },
    async close() {
      // The sweep first: a sweep in progress finishes before the store it writes is closed.
      await sweeper?.stop();
      await server.close();
      if (instance === undefined) await dev.close();
    },
  };
}
