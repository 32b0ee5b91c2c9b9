/**
 * Dynamic client registration (RFC 7591), before oidc-provider reads it: how
 * often one address may register (an anonymous flood would fill the storage),
 * and this server's rules on the metadata: a registration that names no
 * `token_endpoint_auth_method` is a public client (`none`, no secret, as MCP
 * clients expect), a confidential one authenticates with its secret
 * (`client_secret_basic` or `client_secret_post`), a redirect URI over plain
 * http is on loopback (OAuth 2.1 2.3.1: https otherwise; a native app's own
 * scheme stays allowed, RFC 8252 7.1), and no URL the server would fetch
 * itself (`jwks_uri`) is taken from an anonymous registration. The same
 * per-address limiter bounds `/authorize` and device authorization (mount.ts).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../core/network';
import { readBody, replayBody } from './resources';

/** @internal Why a registration was refused before oidc-provider saw it: status, error and description. */
export interface Refusal {
  readonly status: number;
  readonly error: string;
  readonly description: string;
}

const REGISTERED_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];
const MAX_ADDRESSES = 10_000;

/**
 * @internal The address a request came from: the socket's, or with `trustProxy`
 * the last `X-Forwarded-For` hop (the one the proxy itself added; the ones
 * before it are whatever the client wrote).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? String(req.headers['x-forwarded-for'] ?? '').split(',') : [];
  const last = forwarded[forwarded.length - 1]?.trim();
  return last !== undefined && last !== '' ? last.slice(0, 64) : (req.socket.remoteAddress ?? 'unknown');
}

/**
 * @internal At most `limit` requests per address in a rolling window of
 * `windowMs` (in this process; the oldest address is forgotten first when
 * 10 000 are held). One limiter per endpoint: registrations, `/authorize`,
 * device authorization. Resolves the seconds to wait, or 0 when this one may
 * go ahead.
 */
export function addressLimiter(limit: number, windowMs: number, now: () => number = Date.now): (address: string) => number {
  const seen = new Map<string, number[]>();
  return (address) => {
    const at = now();
    const recent = (seen.get(address) ?? []).filter((t) => t > at - windowMs);
    seen.delete(address);
    if (recent.length >= limit) {
      seen.set(address, recent);
      return Math.max(1, Math.ceil(((recent[0] as number) + windowMs - at) / 1000));
    }
    if (seen.size >= MAX_ADDRESSES) seen.delete(seen.keys().next().value as string);
    seen.set(address, [...recent, at]);
    return 0;
  };
}

/** A web redirect URI over plain http to a public host: the code would cross the network in clear. */
function isPlainHttpPublic(uri: unknown): boolean {
  const url = typeof uri === 'string' ? URL.parse(uri) : null;
  return url !== null && url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

const metadataError = (description: string): Refusal => ({ status: 400, error: 'invalid_client_metadata', description });

/**
 * @internal Check a registration's JSON body against the server's rules and
 * give oidc-provider the body with its defaults filled in; `undefined` when it
 * may go on, else the refusal to answer.
 */
export async function checkRegistration(req: IncomingMessage): Promise<Refusal | undefined> {
  const read = await readBody(req);
  if (read.status === 'too_large') return { status: 413, error: 'invalid_request', description: 'the request body is too large' };
  if (read.status !== 'ok') return { status: 400, error: 'invalid_request', description: 'the request body could not be read' };
  let metadata: unknown;
  try {
    metadata = JSON.parse(read.body.toString('utf8'));
  } catch {
    metadata = undefined;
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    // oidc-provider gives the precise answer (wrong content type, not JSON).
    replayBody(req, read.body);
    return undefined;
  }
  const m = metadata as Record<string, unknown>;
  // RFC 7591 2 makes client_secret_basic the default; oidc-provider would issue a secret and then
  // apply its own default `none`. MCP clients that name no method are public clients: say so.
  m.token_endpoint_auth_method ??= 'none';
  if (!REGISTERED_METHODS.includes(m.token_endpoint_auth_method as string)) {
    return metadataError(`token_endpoint_auth_method must be one of ${REGISTERED_METHODS.join(', ')}`);
  }
  // The server would fetch these URLs itself: a registration must not make it reach into its network.
  for (const key of ['jwks_uri', 'sector_identifier_uri', 'request_uris']) {
    if (key in m) return metadataError(`${key} is not accepted at registration`);
  }
  if (Array.isArray(m.redirect_uris) && m.redirect_uris.some((u) => isPlainHttpPublic(u))) {
    return {
      status: 400,
      error: 'invalid_redirect_uri',
      description: 'redirect_uris must use https, or http on a loopback address (127.0.0.1, [::1], localhost)',
    };
  }
  replayBody(req, Buffer.from(JSON.stringify(m)));
  return undefined;
}
