/**
 * The credential revocation endpoint (`POST /api/credentials/revoke` on
 * `svc serve`): whoever finds a leaked token may kill it, without any
 * credential, as GitHub's own `POST /credentials/revoke` lets anyone kill a
 * leaked GitHub token. It can only revoke, and only a token its caller
 * already holds. The answer is `202 {"status":"accepted"}` whatever the body
 * held (ours or not, active or not): no oracle for whether a token exists.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SvcAuthError, ValidationError, type IssueInput } from '../errors';
import { checkOptions, isPlainObject } from '../core/vocabulary';
import { internalsOf, type Auth } from '../service';
import { internal, invalid, json, postOnly, rateLimited, tooLarge, unavailable } from './answer';
import { endpointOf, guardOnError, type Answer, type Outcome } from '../http';
import { checkMaxBodyBytes, nodeHeader, parseJson, readFetchBody, readNodeBody, type RawBody } from './body';
import { checkAuth, checkFunction, checkSource } from './options';
import { checkRateLimit, RateLimiter, type RevocationRateLimit } from './rate-limit';

/**
 * Options of {@link credentialRevocationHandler}. Checked once, when the handler is built.
 *
 * @example
 * ```ts
 * const options: CredentialRevocationOptions = { rateLimit: { requests: 10, windowMs: 60_000 }, onError: console.error };
 * ```
 */
export interface CredentialRevocationOptions {
  /** The `source` of the `token.leaked` events (see `auth.reportLeaked`). Default `'http'`. */
  source?: string;
  /** The largest body read, in bytes (1 to 104 857 600). Default 1 MiB; over it: 413. */
  maxBodyBytes?: number;
  /**
   * Per client address, the address `allowedIps` sees: behind the proxies of `createAuth({ trustProxy })`,
   * the client they name in `X-Forwarded-For`, never the proxy (one client must not use up every
   * reporter's allowance). `false` turns it off (when a proxy in front limits already). Default 60
   * requests an hour.
   */
  rateLimit?: RevocationRateLimit | false;
  /**
   * The peer address of a request, when the runtime knows it and the request does not carry it.
   * Default: the socket's for the node form, the `clientAddress` given to the fetch form. As for the
   * guards, `trustProxy` then applies to it; a client nobody names (none given, a trusted proxy
   * without `X-Forwarded-For`) is counted in one shared bucket.
   */
  clientAddress?: (req: IncomingMessage | Request) => string | undefined;
  /** Sees the original error of every 5xx answer. */
  onError?: (err: unknown) => void;
}

/**
 * The endpoint in both forms: mount `node` on node:http (or Express), `fetch` on a fetch runtime.
 *
 * @example
 * ```ts
 * const revoke: CredentialRevocationHandler = credentialRevocationHandler(auth);
 * // node:http: if (req.url === '/api/credentials/revoke') void revoke.node(req, res);
 * // Express: app.post('/api/credentials/revoke', revoke.node);
 * // Hono: app.post('/api/credentials/revoke', (c) => revoke.fetch(c.req.raw));
 * ```
 */
export interface CredentialRevocationHandler {
  /**
   * Answer one request; an Express or connect handler as it is (`app.post(path, revoke.node)`).
   * A body a parser already read is taken from `req.body`; the third argument (Express's `next`)
   * is never read. Never rejects.
   */
  node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void>;
  /** Answer one request; `info.clientAddress` is the caller's address as your runtime knows it. Never rejects. */
  fetch(req: Request, info?: { clientAddress?: string }): Promise<Response>;
}

const OPTION_KEYS = ['source', 'maxBodyBytes', 'rateLimit', 'clientAddress', 'onError'];
const MAX_CREDENTIALS = 1_000;
const ACCEPTED: Readonly<{ status: 'accepted' }> = Object.freeze({ status: 'accepted' });
/** `application/json`, with parameters; a charset other than UTF-8 is refused (the body is read as UTF-8). */
function isJsonType(value: string | undefined): boolean {
  if (value === undefined || value.length > 256) return false;
  const [type = '', ...params] = value.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  return params.every((p) => {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'charset') return true;
    return (
      p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase() === 'utf-8'
    );
  });
}

/** The peer `clientAddress` gives: `undefined` without the option, `''` (unknown, never the socket's) when it gives no string. */
function peerOf(given: CredentialRevocationOptions['clientAddress'], req: IncomingMessage | Request): string | undefined {
  if (given === undefined) return undefined;
  const a: unknown = given(req);
  return typeof a === 'string' ? a : '';
}

/** What one request is, whichever form it came in. */
interface Incoming {
  method: string | undefined;
  contentType: string | undefined;
  address: string | undefined;
  /** The body: read under the cap, or already parsed by a framework (`{ parsed }`). */
  body(max: number): Promise<RawBody | { parsed: unknown }>;
}

/** The credentials of a body, or the issues that refuse it. */
function credentialsOf(value: unknown): { credentials: string[] } | { issues: IssueInput[] } {
  if (!isPlainObject(value)) {
    return { issues: [{ code: 'invalid_type', path: 'body', message: 'expected a JSON object {"credentials": [string, ...]}' }] };
  }
  const issues: IssueInput[] = [];
  checkOptions(value, ['credentials'], 'body', issues);
  const list = value.credentials;
  if (!Array.isArray(list)) {
    issues.push({ code: 'invalid_type', path: 'body.credentials', message: 'must be an array of strings' });
  } else if (list.length > MAX_CREDENTIALS) {
    issues.push({ code: 'too_big', path: 'body.credentials', message: `at most ${MAX_CREDENTIALS} per request` });
  } else {
    const bad = list.findIndex((c) => typeof c !== 'string');
    if (bad >= 0) issues.push({ code: 'invalid_type', path: ['body', 'credentials', bad], message: 'must be a string' });
  }
  return issues.length > 0 ? { issues } : { credentials: list as string[] };
}

/**
 * The credential revocation endpoint for node:http and fetch runtimes. `POST` a JSON body
 * `{"credentials": ["<token>", ...]}` (at most 1 000; no credential needed): every active token
 * of this instance among them is revoked with its subtree (`auth.reportLeaked`), and the answer
 * is `202 {"status":"accepted"}` whatever they were. Refusals, each in the H2 JSON shape: 405
 * (not POST), 429 (rate limit, with `Retry-After`), 415 (not `application/json`), 413 (over
 * `maxBodyBytes`), 400 (not that JSON; unknown keys included), 503 (the store failed: send it
 * again). Neither form throws or rejects.
 *
 * @throws ValidationError when `auth` or an option is not usable (checked here, once).
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { credentialRevocationHandler } from 'svc-auth/leaks';
 * const revoke = credentialRevocationHandler(auth, { rateLimit: { requests: 30, windowMs: 3_600_000 } });
 * createServer((req, res) => {
 *   if ((req.url ?? '').split('?')[0] === '/api/credentials/revoke') void revoke.node(req, res);
 *   else res.writeHead(404).end();
 * }).listen(8080, '127.0.0.1');
 * ```
 */
export function credentialRevocationHandler(auth: Auth, given: CredentialRevocationOptions = {}): CredentialRevocationHandler {
  const issues: IssueInput[] = [];
  if (!isPlainObject(given)) throw new ValidationError([{ path: 'options', message: 'must be an object' }]);
  checkOptions(given, OPTION_KEYS, 'options', issues);
  const options: CredentialRevocationOptions = { ...given };
  if (issues.length > 0) throw new ValidationError(issues);
  const reportLeaked = checkAuth(auth, 'auth');
  const source = checkSource(options.source, 'http', 'options.source');
  const maxBody = checkMaxBodyBytes(options.maxBodyBytes, 1024 * 1024, 'options.maxBodyBytes');
  const limit = checkRateLimit(options.rateLimit, 'options.rateLimit');
  checkFunction(options.clientAddress, 'options.clientAddress');
  checkFunction(options.onError, 'options.onError');
  const limiter = limit === false ? undefined : new RateLimiter(limit);
  const readAddress = internalsOf(auth)?.clientAddress;
  /** The address a request is counted under: the one `allowedIps` sees, through the `Auth`'s trusted proxies. */
  function addressOf(req: IncomingMessage | Request, peer: string | undefined): string | undefined {
    if (readAddress !== undefined) return readAddress(req, peer);
    return peer ?? (req instanceof Request ? undefined : req.socket?.remoteAddress);
  }
  const report = guardOnError(options.onError);

  /** The answer to one request, and whether its body was left unread (the node form then closes the connection). */
  async function answer(req: Incoming): Promise<Outcome> {
    if (req.method !== 'POST') return { answer: postOnly(), unread: true };
    const wait = limiter?.take(req.address) ?? 0;
    if (wait > 0) return { answer: rateLimited(wait), unread: true };
    if (!isJsonType(req.contentType)) {
      const issue: IssueInput = { code: 'invalid_value', path: 'headers.content-type', message: 'must be application/json' };
      return { answer: invalid([issue], 415), unread: true };
    }
    const body = await req.body(maxBody);
    if ('tooLarge' in body && body.tooLarge) return { answer: tooLarge(maxBody), unread: true };
    const parsed = 'parsed' in body ? { value: body.parsed } : parseJson(body.bytes);
    if (parsed === undefined) {
      return { answer: invalid([{ path: 'body', message: 'is not UTF-8 JSON' }]), unread: false };
    }
    const checked = credentialsOf(parsed.value);
    if ('issues' in checked) return { answer: invalid(checked.issues), unread: false };
    await reportLeaked(checked.credentials, { source });
    return { answer: json(202, ACCEPTED), unread: false };
  }

  /** Any failure as an answer: the store's (503), a check's (400), or a bare 500. */
  function failed(err: unknown): Answer {
    if (err instanceof SvcAuthError && err.code === 'unavailable') {
      report(err);
      return unavailable('the token store did not answer: send the request again');
    }
    if (err instanceof ValidationError) return invalid(err.issues.map((i) => ({ code: i.code, path: [...i.path], message: i.message })));
    report(err);
    return internal();
  }

  return endpointOf<{ clientAddress?: string }>(
    {
      // A body a framework parsed is on req.body; the third argument is Express's `next`, never a body.
      node: (req) =>
        answer({
          method: req.method,
          contentType: nodeHeader(req, 'content-type'),
          address: addressOf(req, peerOf(options.clientAddress, req)),
          body: async (max) => {
            const read = await readNodeBody(req, max);
            return 'framework' in read ? { parsed: read.framework } : read;
          },
        }),
      fetch: (req, info) =>
        answer({
          method: req.method,
          contentType: req.headers.get('content-type') ?? undefined,
          address: addressOf(req, options.clientAddress === undefined ? info?.clientAddress : peerOf(options.clientAddress, req)),
          body: (max) => readFetchBody(req, max),
        }),
    },
    failed,
  );
}
