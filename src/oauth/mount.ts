/**
 * The server on node:http: which paths are its own, and the one function that
 * answers them. Every answer leaves through here: the pages (interactions/),
 * or oidc-provider after the request's resource indicators were given their
 * one spelling (resources.ts), a registration was checked (registration.ts)
 * and the request was made to name the issuer's host, so that no URL the
 * server writes follows `Host` or `X-Forwarded-Host`. Registrations, and
 * sign-ins started at `/authorize` or device authorization, are limited per
 * client address: each one stores an entry. A body a framework
 * parsed before the mount is read from `req.body`. A failure is answered
 * `server_error` (JSON, RFC 6749 5.2) with no stack and no token; the log
 * gets one line.
 * @module
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { routesOf } from './config';
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

function oauthError(res: ServerResponse, status: number, error: string, description: string, retryAfterSec?: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error, error_description: description });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    ...(retryAfterSec === undefined ? {} : { 'retry-after': String(retryAfterSec) }),
  });
  res.end(body);
}

/** `/authorize` is opened in a browser: a refusal is a page a person reads, not JSON. */
function tooManySignIns(res: ServerResponse, app: Brand, retryAfterSec: number): void {
  const body = errorPage(
    app,
    'Too many sign-ins',
    `Too many sign-ins were started from this network. Wait ${retryAfterSec} seconds, then start again from the app.`,
  );
  res.writeHead(429, { ...pageHeaders(app), 'content-length': Buffer.byteLength(body), 'retry-after': String(retryAfterSec) });
  res.end(body);
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
    if (await interactions(req, res, path)) return;
    // A device code form posted without the sign-in cookie (the page was opened elsewhere, or the
    // cookie expired) has no form to check against: start again.
    if (req.method === 'POST' && path === routes.code_verification && !/(?:^|;\s*)svc_oauth_session=/.test(req.headers.cookie ?? '')) {
      res.writeHead(303, { location: routes.code_verification, 'cache-control': 'no-store' });
      res.end();
      return;
    }
    // Counted before anything is read or stored: a refused sign-in costs the storage nothing.
    if (path === routes.authorization) {
      const wait = authorizeWait(clientAddress(req, o.trustProxy));
      if (wait > 0) return tooManySignIns(res, o.look, wait);
    }
    if (req.method === 'POST' && path === routes.device_authorization) {
      const wait = deviceWait(clientAddress(req, o.trustProxy));
      if (wait > 0) return oauthError(res, 429, 'invalid_request', 'too many sign-ins from this address; try again later', wait);
    }
    nameIssuer(req, issuer, o.trustProxy);
    req.url = canonicalUrl(req.url ?? '/', o.resources);
    if (req.method === 'POST' && path === routes.registration && o.registration) {
      const wait = registrationWait(clientAddress(req, o.trustProxy));
      if (wait > 0) return oauthError(res, 429, 'invalid_request', 'too many registrations from this address; try again later', wait);
      const refused = await checkRegistration(req);
      if (refused !== undefined) return oauthError(res, refused.status, refused.error, refused.description);
    }
    const type = String(req.headers['content-type'] ?? '').toLowerCase();
    if (req.method === 'POST' && withBody.has(path) && type.startsWith('application/x-www-form-urlencoded')) {
      const read = await canonicalizeBody(req, o.resources);
      if (read.status === 'too_large') return oauthError(res, 413, 'invalid_request', 'the request body is too large');
      if (read.status !== 'ok') return oauthError(res, 400, 'invalid_request', 'the request body could not be read');
      const code = read.params.get('device_code');
      if (path === routes.token && read.params.get('grant_type') === DEVICE_GRANT && code !== null && tooFast(code)) {
        return oauthError(res, 400, 'slow_down', `poll at most once every ${o.devicePollIntervalSec} seconds`);
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
      oauthError(res, 500, 'server_error', 'the server could not complete the request');
    }
    return true;
  }

  return Object.freeze({
    issuer: o.issuer,
    metadataUrl: `${o.issuer}${WELL_KNOWN[0]}`,
    paths: Object.freeze({ exact: Object.freeze([...WELL_KNOWN]), prefix: `${prefix}/` }),
    owns,
    handle,
    middleware: () => (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
      void handle(req, res).then((handled) => {
        if (!handled) next();
      });
    },
  });
}
