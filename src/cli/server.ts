/**
 * The reference dev server (`svc serve`): node:http and the library's own
 * helpers, on the same `SVC_HOME` as the CLI. Every request is authenticated
 * afresh (records are re-read from the store), so a token revoked by another
 * `svc` process is refused on its next request.
 *
 * Routes (docs/cli.md, the reference server):
 * - `GET  /api/whoami`                                  -> `{kind, user, token}`
 * - `GET  /api/repos/<org>/<repo>/head`                 -> `{org, repo, head}` (repo:read)
 * - `GET  /api/repos/<org>/<repo>/things/<Type>/<name>` -> `{name, content, commit}` (repo:read on the thing)
 * - `PUT  /api/repos/<org>/<repo>/things/<Type>/<name>` with `{content, committer?}` -> `{commit, committer}` (repo:write on the thing)
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, NotFoundError, SvcAuthError, UnavailableError, ValidationError } from '../errors';
import { decisionError, sendError, sendJson } from '../http';
import { writeAnswer } from '../http/respond';
import type { Principal } from '../policy/subject';
import { openInstance, type CliEnv, type DevInstance } from './instance';
import { ThingStore } from './things';

/** Largest request body accepted (1 MiB); larger ones get 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

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
}

/**
 * A dev server, built but not yet listening.
 *
 * @example
 * ```ts
 * const dev = await createDevServer({ env: { SVC_HOME: '/tmp/svc' } });
 * const url = await dev.listen({ port: 0 }); // 'http://127.0.0.1:53124'
 * await dev.close();
 * ```
 */
export interface DevServer {
  readonly server: Server;
  /** Start listening (default host `127.0.0.1`, port 8080; port 0 picks a free one); resolves to the base URL. */
  listen(options?: { host?: string; port?: number }): Promise<string>;
  /** Stop accepting, drop open connections, release the instance if this server opened it. */
  close(): Promise<void>;
}

/** What one request did, for its log line. */
interface Trace {
  user?: string;
  token?: string;
  reason?: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, trace: Trace) => Promise<void>;
interface Route {
  methods: Record<string, Handler>;
}

const JWT_LIKE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?/g;

/**
 * Build the reference dev server over the dev instance.
 *
 * @throws UnavailableError when the instance cannot be opened.
 * @example
 * ```ts
 * import { createDevServer } from './src/cli/server'; // not a public export: the reference server of `svc serve`
 * const dev = await createDevServer({ env: process.env, log: (l) => process.stderr.write(`${l}\n`) });
 * console.log(`listening on ${await dev.listen({ port: 0 })}`);
 * ```
 */
export async function createDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const owned = options.instance === undefined;
  const dev = options.instance ?? (await openInstance(options.env ?? {}));
  const things = new ThingStore(dev.home);
  const log = options.log;

  async function principal(req: IncomingMessage, trace: Trace): Promise<Principal> {
    const p = await dev.auth.authenticateRequest(req);
    trace.user = p.userId;
    trace.token = p.tokenName ?? p.kind;
    return p;
  }

  /** Authorize or answer the refusal; true when the handler may go on. */
  function allowed(p: Principal, res: ServerResponse, trace: Trace, resource: string, permission: string, thing?: string): boolean {
    const d = dev.auth.authorize(p, resource, permission, thing);
    if (d.allowed) {
      trace.reason = 'allow';
      return true;
    }
    trace.reason = d.reason;
    writeAnswer(res, decisionError(d));
    return false;
  }

  function route(path: string): Route | undefined {
    const segs = segments(path);
    if (segs === undefined || segs[0] !== 'api') return undefined;
    if (segs.length === 2 && segs[1] === 'whoami') {
      return {
        methods: {
          GET: async (req, res, trace) => {
            const p = await principal(req, trace);
            trace.reason = 'allow';
            sendJson(res, 200, { kind: p.kind, user: p.userId, token: p.tokenName ?? null });
          },
        },
      };
    }
    if (segs[1] !== 'repos' || segs.length < 5) return undefined;
    const [org, repo, what] = [segs[2] as string, segs[3] as string, segs[4] as string];
    const resource = `${org}/${repo}`;
    const key = resource.toLowerCase();
    if (what === 'head' && segs.length === 5) {
      return {
        methods: {
          GET: async (req, res, trace) => {
            const p = await principal(req, trace);
            if (!allowed(p, res, trace, resource, 'repo:read')) return;
            sendJson(res, 200, { org: org.toLowerCase(), repo: repo.toLowerCase(), head: await things.head(key) });
          },
        },
      };
    }
    if (what !== 'things' || segs.length < 7) return undefined;
    const name = segs.slice(5).join('/');
    return {
      methods: {
        GET: async (req, res, trace) => {
          const p = await principal(req, trace);
          if (!allowed(p, res, trace, resource, 'repo:read', name)) return;
          const thing = await things.get(key, name);
          if (thing === undefined) throw new NotFoundError(`no thing ${name} in ${key}`);
          sendJson(res, 200, { name: thing.name, content: thing.content, commit: thing.commit });
        },
        PUT: async (req, res, trace) => {
          const p = await principal(req, trace);
          if (!allowed(p, res, trace, resource, 'repo:write', name)) return;
          const body = await readJson(req, res);
          if (body === undefined) return;
          const { content, committer: override } = writeInput(body);
          const committer = dev.auth.committer(p, override);
          const thing = await things.put(key, name, content, committer);
          sendJson(res, 200, { commit: thing.commit, committer: thing.committer });
        },
      },
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const trace: Trace = {};
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    try {
      const r = route(path);
      if (r === undefined) throw new NotFoundError('no such endpoint');
      const handler = Object.hasOwn(r.methods, method) ? r.methods[method] : undefined;
      if (handler === undefined) {
        trace.reason = 'method';
        sendJson(res, 405, { error: 'method_not_allowed', message: `use ${Object.keys(r.methods).join(' or ')}` }, { allow: Object.keys(r.methods).join(', ') });
        return;
      }
      await handler(req, res, trace);
    } catch (err) {
      trace.reason ??= err instanceof AuthenticationError ? err.reason : err instanceof SvcAuthError ? err.code : 'internal';
      sendError(res, err);
    } finally {
      if (log !== undefined) {
        const line = `${method} ${path} ${res.statusCode} user=${trace.user ?? '-'} token=${trace.token ?? '-'} reason=${trace.reason ?? '-'}`;
        // Paths come from the client: no control characters, and nothing shaped like a token, reach the log.
        log(line.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').replace(JWT_LIKE, '[redacted]').slice(0, 2048));
      }
    }
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  return {
    server,
    listen({ host = '127.0.0.1', port = 8080 } = {}) {
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        return Promise.reject(new ValidationError([{ path: 'port', message: 'expected an integer from 0 to 65535' }]));
      }
      return new Promise<string>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException): void => {
          reject(new UnavailableError(`cannot listen on ${host}:${port}: ${err.code ?? 'error'}`, { cause: err }));
        };
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const addr = server.address() as AddressInfo;
          const h = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
          resolve(`http://${h}:${addr.port}`);
        });
      });
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (owned) await dev.close();
    },
  };
}

/** Path segments, percent-decoded; `undefined` when a segment does not decode or hides a `/`. */
function segments(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const out: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (s.includes('/')) return undefined;
    out.push(s);
  }
  return out;
}

/** The JSON body, or `undefined` after answering 413 for a body over {@link MAX_BODY_BYTES}. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const tooLarge = (): undefined => {
    sendJson(res, 413, { error: 'too_large', message: `the body is larger than ${MAX_BODY_BYTES} bytes` }, { connection: 'close' });
    return undefined;
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new ValidationError([{ path: 'body', message: 'expected a JSON object {"content", "committer"?}' }]);
  }
}

function writeInput(body: unknown): { content: unknown; committer?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ path: 'body', message: 'expected a JSON object {"content", "committer"?}' }]);
  }
  const rec = body as Record<string, unknown>;
  const issues = Object.keys(rec)
    .filter((k) => k !== 'content' && k !== 'committer')
    .map((k) => ({ path: `body.${k.slice(0, 64)}`, message: 'unknown field' }));
  if (!Object.hasOwn(rec, 'content')) issues.push({ path: 'body.content', message: 'is required' });
  if (rec.committer !== undefined && typeof rec.committer !== 'string') issues.push({ path: 'body.committer', message: 'expected an identity wref string' });
  if (issues.length > 0) throw new ValidationError(issues);
  return typeof rec.committer === 'string' ? { content: rec.content, committer: rec.committer } : { content: rec.content };
}
