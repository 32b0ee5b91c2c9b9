/**
 * `svc auth login` by device code (RFC 8628): ask the server for a device
 * code, show the person where to approve it, and poll the token endpoint at
 * the server's interval (slower after `slow_down`) until they approve, deny,
 * or the code expires. The clock and the wait are injected, so that tests
 * drive time; the deadline is the code's `expires_in` by the CLI's own clock,
 * so a server that answers "pending" forever cannot hold the CLI.
 * @module
 */
import { UnavailableError } from '../../../errors';
import { requestJson, type JsonAnswer } from './http';
import type { ServerEndpoints } from './server';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The longest wait accepted from a server: a code that lives longer is held to this. */
const MAX_EXPIRES_SEC = 1_800;
const MAX_INTERVAL_SEC = 60;

/** Tokens as the token endpoint answered them (values are secrets: never printed). */
export interface GrantedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Seconds the access token lives, as the server said. */
  readonly expiresIn: number;
}

/** How the device login ended. */
export type DeviceOutcome =
  { readonly kind: 'approved'; readonly tokens: GrantedTokens } | { readonly kind: 'denied' } | { readonly kind: 'expired' };

/** What the device login needs from its caller. */
export interface DeviceDeps {
  /** Milliseconds now. */
  now(): number;
  /** Wait `ms`. */
  sleep(ms: number): Promise<void>;
  /** Show the person what to do (stderr). */
  show(verificationUri: string, userCode: string): void;
}

const printable = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max && !/[\u0000-\u001f\u007f-\u009f]/.test(v);

/** The refusal of a token answer: its `error` when it is one word, else `undefined`. */
function errorOf(answer: JsonAnswer): string | undefined {
  const e = answer.body?.error;
  return typeof e === 'string' && /^[a-z_]{1,64}$/.test(e) ? e : undefined;
}

/**
 * @internal Tokens from a 200 answer of the token endpoint, or an `UnavailableError`.
 *
 * @example
 * ```ts
 * const tokens = tokensOf(await requestJson(endpoints.token, 'the token endpoint', form));
 * ```
 */
export function tokensOf(answer: JsonAnswer): GrantedTokens {
  const b = answer.body;
  const bad = (): never => {
    throw new UnavailableError('the token endpoint answered without usable tokens');
  };
  if (answer.status !== 200 || b === undefined) return bad();
  const { access_token: access, refresh_token: refresh, expires_in: expires, token_type: type } = b;
  if (!printable(access, 8192) || !printable(refresh, 4096) || typeof type !== 'string' || type.toLowerCase() !== 'bearer') return bad();
  const expiresIn = typeof expires === 'number' && Number.isFinite(expires) && expires > 0 ? Math.min(expires, 86_400) : 300;
  return { accessToken: access, refreshToken: refresh, expiresIn };
}

/**
 * Run the device flow for `clientId` at `endpoints`, asking for a token for the API
 * resource (the issuer).
 *
 * @throws UnavailableError when the server cannot be reached or answers something unusable.
 * @example
 * ```ts
 * const outcome = await deviceLogin(endpoints, 'svc-cli', { now: Date.now, sleep, show: (uri, code) => console.error(uri, code) });
 * ```
 */
export async function deviceLogin(endpoints: ServerEndpoints, clientId: string, deps: DeviceDeps): Promise<DeviceOutcome> {
  const start = await requestJson(
    endpoints.deviceAuthorization,
    'the device authorization endpoint',
    new URLSearchParams({ client_id: clientId, resource: endpoints.issuer }),
  );
  const d = start.body;
  if (start.status !== 200 || d === undefined) {
    const error = errorOf(start);
    throw new UnavailableError(`the server refused to start a device sign-in${error === undefined ? '' : ` (${error})`}`);
  }
  const { device_code: deviceCode, user_code: userCode, verification_uri: uri, verification_uri_complete: complete } = d;
  if (!printable(deviceCode, 512) || !printable(userCode, 64) || !printable(uri, 2048)) {
    throw new UnavailableError('the device authorization answer is not usable (no device code, user code or verification URI)');
  }
  // The page the person opens must be the server's own: a URI elsewhere would send them to another site to approve.
  const onServer = (v: unknown): v is string => printable(v, 2048) && URL.parse(v)?.origin === endpoints.issuer;
  if (!onServer(uri)) throw new UnavailableError('the verification URI is not on the server: refused');
  deps.show(onServer(complete) ? complete : uri, userCode);
  const expiresSec = typeof d.expires_in === 'number' && d.expires_in > 0 ? Math.min(d.expires_in, MAX_EXPIRES_SEC) : 300;
  let intervalSec = typeof d.interval === 'number' && d.interval >= 1 ? Math.min(d.interval, MAX_INTERVAL_SEC) : 5;
  const deadline = deps.now() + expiresSec * 1000;
  const form = new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });
  for (;;) {
    const wait = Math.min(intervalSec * 1000, deadline - deps.now());
    if (wait <= 0) return { kind: 'expired' };
    await deps.sleep(wait);
    if (deps.now() >= deadline) return { kind: 'expired' };
    const answer = await requestJson(endpoints.token, 'the token endpoint', form);
    if (answer.status === 200) return { kind: 'approved', tokens: tokensOf(answer) };
    const error = errorOf(answer);
    if (error === 'authorization_pending') continue;
    // RFC 8628 3.5: slow down by 5 seconds, for this and every later poll.
    if (error === 'slow_down') intervalSec = Math.min(intervalSec + 5, MAX_INTERVAL_SEC);
    else if (error === 'access_denied') return { kind: 'denied' };
    else if (error === 'expired_token') return { kind: 'expired' };
    else
      throw new UnavailableError(
        `the token endpoint refused the sign-in${error === undefined ? ` (HTTP ${answer.status})` : ` (${error})`}`,
      );
  }
}
