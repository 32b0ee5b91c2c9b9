/**
 * The one registry of what each `Auth` made by `createAuth` keeps for the code
 * built on it (the guards, `/mcp`, the leak endpoints, an authorization
 * server), and `isAuth`, the one check that a value is such an `Auth`.
 *
 * A `WeakMap` keyed by the frozen `Auth` object, written once by `createAuth`:
 * nothing on the object itself (a property, a symbol) could be copied onto a
 * look-alike, and nothing here keeps an `Auth` alive. Checking the methods an
 * object has instead (duck typing) accepts a wrapper or a stand-in that
 * decides by its own rules, and each edge checked a different set of them.
 * @module
 */
import type { DenyReason, Principal } from '../../core/policy';
import type { BearerRequest } from '../../tokens';
import type { Auth } from '../contract';
import type { SessionRecorder } from './records';
import type { MachineClientRecord, ServiceAccountRecord } from '../../stores';

/**
 * @internal The client address of `req` as canonical text, or `undefined` when it is not known (a trusted
 * proxy that names no client, a header that cannot be read). `peer`: the connection's address when the
 * request carries none (a fetch `Request`); a node request's socket is read when it is absent. Never throws.
 *
 * @example
 * ```ts
 * const read: ClientAddressReader = (req, peer) => peer; // what an Auth without trustProxy amounts to
 * ```
 */
export type ClientAddressReader = (req: BearerRequest, peer?: string) => string | undefined;

/**
 * @internal Report one refusal as an `access.denied` event (never throws).
 *
 * @example
 * ```ts
 * const denied: DeniedReporter = (p, resource, permission, reason) => console.log(p.userId, resource, permission, reason);
 * ```
 */
export type DeniedReporter = (principal: Principal, resource: string, permission: string, reason: DenyReason, thingName?: string) => void;

/**
 * @internal What an `Auth` keeps for the layers built on it, apart from its public methods.
 *
 * @example
 * ```ts
 * const address = internalsOf(auth)?.clientAddress(req); // '203.0.113.7' behind a trusted proxy
 * ```
 */
export interface AuthInternals {
  /** Session records of another issuer (an authorization server built on this `Auth`). */
  readonly records: SessionRecorder;
  /**
   * The client address as `allowedIps` reads it (behind `trustProxy`: the client, not the proxy), for the code
   * beside the guards that counts clients (the leak endpoints' rate limit): one reading of `trustProxy` for
   * everything built on one `Auth`, so the rate limit never counts a proxy where `allowedIps` sees its client.
   */
  readonly clientAddress: ClientAddressReader;
  /** The `access.denied` reporter; `null` when `createAuth` was given no `onEvent`. */
  readonly denied: DeniedReporter | null;
  /** The machine clients of service accounts, for an authorization server's `client_credentials` grant. */
  readonly machines: MachineClientsView;
  /** Does the `Auth` trust workloads (`trustedWorkloads`)? An authorization server then offers the JWT bearer grant. */
  readonly workloads: boolean;
  /**
   * The nonce to send in `DPoP-Nonce` with the answer to `req` (RFC 9449 §8.2): the current one when the
   * `Auth` hands out nonces (`dpopNonce`) and `req` carried a DPoP proof, else `undefined`. Never throws.
   */
  readonly dpopNonce: (req: unknown) => string | undefined;
  /**
   * `authenticateRequest` in the caller's turn, for the guards: the principal at once when nothing had to wait
   * (a hot token on an in-process store), else a promise; a refusal met before any wait is thrown.
   */
  readonly authenticateRequestNow: (req: BearerRequest, address: string | undefined) => Principal | Promise<Principal>;
}

/**
 * @internal What an authorization server asks of machine clients (`service-accounts/clients.ts` implements it;
 * declared here by shape, since internals sit below the service's parts).
 *
 * @example
 * ```ts
 * const found = await internalsOf(auth)?.machines.findClient('sa~acme~ci-bot~q0Zr1u6fYVxJ3ZtUQW4ilA');
 * ```
 */
export interface MachineClientsView {
  /** The live client, its account, and the permissions the account's role can ever grant on its org. */
  findClient(
    clientId: string,
  ): Promise<{ account: ServiceAccountRecord; client: MachineClientRecord; permissions: readonly string[] } | null>;
  checkSecret(client: MachineClientRecord, presented: string): boolean;
}

const INTERNALS = new WeakMap<object, AuthInternals>();

/**
 * @internal Give `auth` its internals: by `createAuth`, once, for the frozen object it returns.
 *
 * @example
 * ```ts
 * registerInternals(frozen, { records, clientAddress, denied: null });
 * ```
 */
export function registerInternals(auth: Auth, internals: AuthInternals): void {
  INTERNALS.set(auth, Object.freeze({ ...internals }));
}

/**
 * @internal The internals of an `Auth` made by `createAuth`, else `undefined` (anything else: a copy, a
 * wrapper, a look-alike with the same methods).
 *
 * @example
 * ```ts
 * const recorder = internalsOf(options.auth)?.records;
 * ```
 */
export function internalsOf(value: unknown): AuthInternals | undefined {
  return typeof value === 'object' && value !== null ? INTERNALS.get(value) : undefined;
}

/**
 * @internal Is `value` an `Auth` that `createAuth` returned? Not a copy (`{ ...auth }`), a wrapper or an
 * object with the same methods: each edge that takes an `auth` option checks it with this when it is built.
 *
 * @example
 * ```ts
 * if (!isAuth(options.auth)) throw new ValidationError([{ path: 'auth', message: 'must be the object createAuth returned' }]);
 * ```
 */
export function isAuth(value: unknown): value is Auth {
  return internalsOf(value) !== undefined;
}

const DENY_REASONS = new Set(['invalid', 'role', 'policy', 'scope', 'thing']);

/**
 * Report that `principal` was refused `permission` on `resource`, as an
 * `access.denied` event to the `onEvent` hook of `auth`. For HTTP guards and
 * adapters (and your own checks) after `auth.authorize` said no. Returns at
 * once and never throws; does nothing when `auth` has no hook or the arguments
 * are not what they should be. A principal that `auth` did not make (a copy,
 * another instance's) is reported with actor kind `unknown`.
 *
 * @example
 * ```ts
 * const d = auth.authorize(principal, 'acme/web', 'repo:write', 'Doc/readme');
 * if (!d.allowed) reportDenied(auth, principal, 'acme/web', 'repo:write', d.reason, 'Doc/readme');
 * ```
 */
export function reportDenied(
  auth: object,
  principal: Principal,
  resource: string,
  permission: string,
  reason: DenyReason,
  thingName?: string,
): void {
  try {
    const denied = internalsOf(auth)?.denied;
    if (denied === null || denied === undefined || typeof principal !== 'object' || principal === null) return;
    if (typeof resource !== 'string' || typeof permission !== 'string' || !DENY_REASONS.has(reason)) return;
    denied(principal, resource, permission, reason, thingName);
  } catch {
    // Reporting is advisory: a broken clock or principal never reaches the request.
  }
}
