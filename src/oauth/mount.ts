/**
 * The server on node:http: which paths are its own, and the one function that
 * answers them. Every answer leaves through here: the pages (interactions/),
 * or oidc-provider after the request's resource indicators were given their
 * one spelling (resources.ts), a registration was checked (registration.ts)
 * and the request was made to name the issuer's host, so that no URL the
 * server writes follows `Host` or `X-Forwarded-Host`. Registrations, and
 * sign-ins started at `/authorize` or device authorization, are limited per
 * client address: each one stores an entry. A body a framework
 * parsed before the mount is read from `req.body`; one it read and kept to
 * itself is a misconfiguration (`server_error`, never an empty body). Every
 * answer of its own is written by the HTTP layer's one writer. A failure is answered
 * `server_error` (JSON, RFC 6749 5.2) with no stack and no token; the log
 * gets one line.
 * @module
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { routesOf } from './config';
import { assertUnread, closing, JSON_HEADERS, writeAnswer, type Answer } from '../http';
import type { ResolvedOptions } from './options';
import { errorPage, pageHeaders, type Brand } from './pages';
import { addressLimiter, checkRegistration, clientAddress } from './registration';
import { canonicalizeBody, canonicalUrl, restoreParsedBody } from './resources';
import type { AuthorizationServer } from './types';

const WELL_KNOWN = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const MAX_POLLERS = 10_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** An OAuth error answer (RFC 6749 5.2), with the seconds to wait when it is a 429. */
function oauthError(status: number, error: string, description: string, retryAfterSec?: number): Answer {
  const headers = retryAfterSec === undefined ? JSON_HEADERS : { ...JSON_HEADERS, 'retry-after': String(retryAfterSec) };
  return { status, headers, body: { error, error_description: description } };
}

/** `/authorize` is opened in a browser: a refusal is a page a person reads, not JSON. */
function tooManySignIns(app: Brand, retryAfterSec: number): Answer {
  const body = errorPage(
    app,
    'Too many sign-ins',
    `Too many sign-ins were started from this network. Wait ${retryAfterSec} seconds, then start again from the app.`,
  );
  return { status: 429, headers: { ...pageHeaders(app), 'retry-after': String(retryAfterSec) }, body };
}

/**
 * Device polling faster than the interval gets `slow_down` (RFC 8628 3.5), per
 * device code, in this process (bounded: the oldest code is forgotten first).
 */
function pollGuard(intervalSec: number): (deviceCode: string) => boolean {
  const last = new Map<string, number>();
  return (deviceCode) => {
    const key = createHash('sha256').update(deviceCode).digest('base64url');
    const now = Date.now();
    const before = last.get(key);
    last.delete(key);
    if (last.size >= MAX_POLLERS) last.delete(last.keys().next().value as string);
    last.set(key, now);
    return before !== undefined && now - before < intervalSec * 1000 - 250;
  };
}

/**
 * oidc-provider writes its URLs (metadata, redirects, the device pages' form actions) from the
 * request's host and protocol: the request is made to name the issuer's, whatever `Host` or
 * `X-Forwarded-Host` it came with.
 */
function nameIssuer(req: IncomingMessage, issuer: URL, trustProxy: boolean): void {
  req.headers.host = issuer.host;
  delete req.headers[':authority'];
  delete req.headers['x-forwarded-host'];
  delete req.headers.forwarded;
  if (trustProxy) req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
}

/** @internal The {@link AuthorizationServer} over `provider` and the interaction routes. */
export function mount(
  o: ResolvedOptions,
  provider: Provider,
  interactions: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>,
): Omit<AuthorizationServer, 'publicJwks'> {
  const callback = provider.callback();
  const prefix = o.prefix;
  const routes = routesOf(prefix);
  const withBody = new Set([routes.token, routes.authorization, routes.device_authorization]);
  const tooFast = pollGuard(o.devicePollIntervalSec);
  const registrationWait = addressLimiter(o.registrationsPerHour, HOUR_MS);
  const authorizeWait = addressLimiter(o.authorizationsPerMinute, MINUTE_MS);
  const deviceWait = addressLimiter(o.authorizationsPerMinute, MINUTE_MS);
  const issuer = new URL(o.issuer);
  const owns = (path: string): boolean => (WELL_KNOWN as readonly string[]).includes(path) || path.startsWith(`${prefix}/`);

  async function answer(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    restoreParsedBody(req);
    // A body a parser read and kept (nothing on req.body) is a misconfiguration, answered server_error: never an empty body.
    if (req.method === 'POST') assertUnread(req);
    if (await interactions(req, res, path)) return;
    // A device code form posted without the sign-in cookie (the page was opened elsewhere, or the
    // cookie expired) has no form to check against: start again.
    if (req.method === 'POST' && path === routes.code_verification && !/(?:^|;\s*)svc_oauth_session=/.test(req.headers.cookie ?? '')) {
      return writeAnswer(res, {
        status: 303,
        headers: { location: routes.code_verification, 'cache-control': 'no-store' },
        body: undefined,
      });
    }
    // Counted before anything is read or stored: a refused sign-in costs the storage nothing.
    if (path === routes.authorization) {
      const wait = authorizeWait(clientAddress(req, o.trustProxy));
      if (wait > 0) return writeAnswer(res, tooManySignIns(o.look, wait));
    }
    if (req.method === 'POST' && path === routes.device_authorization) {
      const wait = deviceWait(clientAddress(req, o.trustProxy));
      if (wait > 0)
        return writeAnswer(res, oauthError(429, 'invalid_request', 'too many sign-ins from this address; try again later', wait));
    }
    nameIssuer(req, issuer, o.trustProxy);
    req.url = canonicalUrl(req.url ?? '/', o.resources);
    if (req.method === 'POST' && path === routes.registration && o.registration) {
      const wait = registrationWait(clientAddress(req, o.trustProxy));
      if (wait > 0)
        return writeAnswer(res, oauthError(429, 'invalid_request', 'too many registrations from this address; try again later', wait));
      const refused = await checkRegistration(req);
      if (refused !== undefined) {
        const a = oauthError(refused.status, refused.error, refused.description);
        // Over the cap, the rest of the body was never read: the connection closes after the answer.
        return writeAnswer(res, refused.status === 413 ? closing(a) : a);
      }
    }
    const type = String(req.headers['content-type'] ?? '').toLowerCase();
    if (req.method === 'POST' && withBody.has(path) && type.startsWith('application/x-www-form-urlencoded')) {
      const read = await canonicalizeBody(req, o.resources);
      if (read.status === 'too_large')
        return writeAnswer(res, closing(oauthError(413, 'invalid_request', 'the request body is too large')));
      if (read.status !== 'ok') return writeAnswer(res, oauthError(400, 'invalid_request', 'the request body could not be read'));
      const code = read.params.get('device_code');
      if (path === routes.token && read.params.get('grant_type') === DEVICE_GRANT && code !== null && tooFast(code)) {
        return writeAnswer(res, oauthError(400, 'slow_down', `poll at most once every ${o.devicePollIntervalSec} seconds`));
      }
    }
    await callback(req, res);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!owns(path)) return false;
    try {
      await answer(req, res, path);
    } catch (err) {
      o.log(`oauth: server_error on ${req.method ?? 'GET'} ${path.slice(0, 200)}: ${err instanceof Error ? err.name : 'unknown'}`);
      writeAnswer(res, oauthError(500, 'server_error', 'the server could not complete the request'));
    }
    return true;
  }

  return Object.freeze({
    issuer: o.issuer,
    metadataUrl: `${o.issuer}${WELL_KNOWN[0]}`,
    paths: Object.freeze({ exact: Object.freeze([...WELL_KNOWN]), prefix: `${prefix}/` }),
    owns,
    handle,
    async node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void> {
      if (await handle(req, res)) return;
      // Express and Connect pass `next`: another path is the next handler's. Alone on node:http, a 404.
      if (typeof next === 'function') (next as () => void)();
      else writeAnswer(res, { status: 404, headers: JSON_HEADERS, body: { error: 'not_found', message: 'no such path' } });
    },
  });
}
