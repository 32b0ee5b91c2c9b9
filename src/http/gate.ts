/**
 * The decisions every guard shares: `requireAuth`, `withAuth`, the Express,
 * Hono and Fastify adapters and the reference dev server, all through the
 * adapter kit (`kit.ts`). Options are checked once, when a guard is built;
 * each request is then admitted by the kit and authorized by {@link permit},
 * and every refusal of every guard goes through {@link refuse}.
 * @module
 */
import { AuthenticationError, ValidationError, type IssueInput } from '../errors';
import type { Principal } from '../core/policy';
import type { BearerRequest } from '../tokens';
import { internalsOf, isAuth, reportDenied, type Auth } from '../service';
import { checkOptions, isPermission, type Permission } from '../core/vocabulary';
import { DEFAULT_REALM, decisionError, errorAnswer, isRealm, type ErrorAnswer } from './errors';
import { guardOnError } from './answer';
import { decided, type GuardDecision, type Refusal } from './decision';

/** Response header that carries the credential's expiry (ISO 8601) on authenticated requests. */
export const EXPIRATION_HEADER = 'svc-token-expiration';

/**
 * Options every guard and adapter shares. `R` is the request the guard is
 * given (node's `IncomingMessage`, a fetch `Request`, Hono's `Context`,
 * Fastify's request), which `onDecision` hears with each decision.
 *
 * @example
 * ```ts
 * const options: GuardOptions = { realm: 'acme', optional: false, expirationHeader: true };
 * ```
 */
export interface GuardOptions<R = unknown> {
  /** The realm of `WWW-Authenticate` challenges. Default `'svc'`. */
  realm?: string;
  /**
   * Adapters only: a request without any credential goes on with principal
   * `null` instead of a 401. A bad, expired or revoked credential is still a 401.
   */
  optional?: boolean;
  /** Set `Svc-Token-Expiration: <ISO 8601>` on authenticated requests. Default `true`. */
  expirationHeader?: boolean;
  /**
   * Called with the original error whenever the answer is a 5xx (a store outage,
   * a bug in a handler), so you can log what the client is never shown.
   */
  onError?: (err: unknown) => void;
  /**
   * Called once for each decision the guard makes on a request (admitted,
   * refused, and for a guard with a permission the authorization too), with
   * what it decided and the request, so you can log, count or audit it. It
   * hears the decision before the answer is written; what it returns is not
   * awaited, and a hook that throws or rejects changes nothing: the decision
   * stands and nothing crashes.
   *
   * @example
   * ```ts
   * requireAuth(auth, { onDecision: (d, req) => console.log(req.url, d.allowed ? 'allow' : d.status) });
   * ```
   */
  onDecision?: (decided: GuardDecision, req: R) => unknown;
}

/**
 * Options of an adapter's admission (`svcAuth`): those every guard shares,
 * and where the connection's peer address is, for `allowedIps` and the
 * last-used addresses.
 *
 * @example
 * ```ts
 * // Cloudflare Workers: the edge puts the client's address in a header only it sets.
 * const options: AdmissionOptions<Request> = { clientAddress: (req) => req.headers.get('cf-connecting-ip') ?? undefined };
 * ```
 */
export interface AdmissionOptions<R> extends GuardOptions<R> {
  /**
   * The address of the connection's peer (not a header a client can set),
   * for a request that does not carry it. Default: the socket of a node
   * request; for Hono, what `@hono/node-server`, Bun or Deno hand over.
   * `createAuth({ trustProxy })` then applies to it. A function that throws
   * or returns something that is not an address means "unknown": a token
   * with `allowedIps` is refused (403).
   */
  clientAddress?: (req: R) => string | undefined;
}

/** @internal what a built guard remembers. */
export interface Gate {
  readonly auth: Auth;
  readonly realm: string;
  readonly optional: boolean;
  readonly expirationHeader: boolean;
  /** The caller's `onError`, guarded: it never throws or rejects. */
  readonly onError: (err: unknown) => void;
  /** The caller's `onDecision`, guarded likewise; `undefined` when not given, so that no decision is built for nobody. */
  readonly onDecision: ((decided: GuardDecision, req: unknown) => void) | undefined;
  /** Expiry instants already formatted for {@link EXPIRATION_HEADER} (bounded, see `expiration`). */
  readonly expiryText: Map<number, string>;
  /** Where the peer address of a request is, when the option was given. */
  readonly clientAddress: ((req: never) => string | undefined) | undefined;
  /** The `DPoP-Nonce` to send with an admitted DPoP request, when the `Auth` hands out nonces (RFC 9449 §8.2). */
  readonly nonceFor: (req: unknown) => string | undefined;
  /** `authenticateRequest` in the request's turn: the principal at once when nothing waited; may throw the refusal. */
  readonly authenticate: (req: BearerRequest, peer: string | undefined) => Principal | Promise<Principal>;
}

/** @internal what a guard is built from: its gate, and its route's check when it checks a permission. */
export interface GuardParts<R> {
  readonly gate: Gate;
  readonly route: RouteCheck<R> | undefined;
}

/** @internal a route's permission check. */
export interface RouteCheck<R> {
  readonly permission: Permission;
  readonly resource: (req: R) => string;
  readonly thing: ((req: R) => string | undefined) | undefined;
}

export const GUARD_KEYS = ['realm', 'optional', 'expirationHeader', 'onError', 'onDecision', 'clientAddress'] as const;

/**
 * @internal read an options object: an object (or undefined) whose keys are all
 * known. Unknown keys are listed as issues so that a typo never loosens a guard.
 */
export function readOptions(options: unknown, known: readonly string[], issues: IssueInput[]): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    issues.push({ path: 'options', message: 'must be an object' });
    return {};
  }
  checkOptions(options, known, 'options', issues);
  return options as Record<string, unknown>;
}

/** @internal build the shared part of a guard; issues are collected, not thrown. */
export function makeGate(auth: unknown, rec: Record<string, unknown>, issues: IssueInput[]): Gate {
  if (!isAuth(auth)) issues.push({ path: 'auth', message: 'must be the object createAuth returned' });
  const { realm, optional, expirationHeader, onError, onDecision, clientAddress } = rec;
  if (realm !== undefined && !isRealm(realm)) {
    issues.push({ path: 'options.realm', message: 'must be 1 to 128 printable ASCII characters without " or \\' });
  }
  for (const [name, value] of [
    ['optional', optional],
    ['expirationHeader', expirationHeader],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') issues.push({ path: `options.${name}`, message: 'must be true or false' });
  }
  if (onError !== undefined && typeof onError !== 'function') issues.push({ path: 'options.onError', message: 'must be a function' });
  if (onDecision !== undefined && typeof onDecision !== 'function') {
    issues.push({ path: 'options.onDecision', message: 'must be a function (decided, req) => void' });
  }
  if (clientAddress !== undefined && typeof clientAddress !== 'function') {
    issues.push({ path: 'options.clientAddress', message: 'must be a function (req) => the peer address' });
  }
  return Object.freeze({
    auth: auth as Auth,
    realm: typeof realm === 'string' ? realm : DEFAULT_REALM,
    optional: optional === true,
    expirationHeader: expirationHeader !== false,
    onError: guardOnError(onError as ((err: unknown) => unknown) | undefined),
    onDecision: typeof onDecision === 'function' ? guardOnError(onDecision as (d: GuardDecision, req: unknown) => unknown) : undefined,
    expiryText: new Map<number, string>(),
    clientAddress: clientAddress as Gate['clientAddress'],
    nonceFor: internalsOf(auth)?.dpopNonce ?? noNonce,
    authenticate: internalsOf(auth)?.authenticateRequestNow ?? viaPromise(auth as Auth),
  });
}

/** An `Auth` without internals is refused when the guard is built; this keeps the type whole. */
function viaPromise(auth: Auth): Gate['authenticate'] {
  return (req, peer) => (peer === undefined ? auth.authenticateRequest(req) : auth.authenticateRequest(req, { address: peer }));
}

const noNonce = (): undefined => undefined;

/** @internal check a route's permission options; `required` when the guard cannot work without them. */
export function makeRoute<R>(rec: Record<string, unknown>, issues: IssueInput[], required: boolean): RouteCheck<R> | undefined {
  const { permission, resource, thing } = rec;
  if (permission !== undefined && !isPermission(permission)) {
    issues.push({ path: required ? 'permission' : 'options.permission', message: 'is not a permission' });
  }
  for (const [name, fn] of [
    ['resource', resource],
    ['thing', thing],
  ] as const) {
    if (fn !== undefined && typeof fn !== 'function') issues.push({ path: `options.${name}`, message: 'must be a function' });
  }
  if (required && resource === undefined) {
    issues.push({ path: 'options.resource', message: 'is required: (req) => "org/repo" or "org", from route parameters' });
  }
  if (!required && (permission === undefined) !== (resource === undefined)) {
    issues.push({ path: 'options', message: 'give permission and resource together, or neither' });
  }
  if (thing !== undefined && resource === undefined) issues.push({ path: 'options.thing', message: 'needs permission and resource' });
  if (permission === undefined || resource === undefined) return undefined;
  // A private copy: later changes to the caller's object cannot loosen the check.
  return Object.freeze({
    permission: permission as Permission,
    resource: resource as (req: R) => string,
    thing: thing as ((req: R) => string | undefined) | undefined,
  });
}

/** @internal throw the collected issues, if any. */
export function finish(issues: IssueInput[]): void {
  if (issues.length > 0) throw new ValidationError(issues);
}

/** @internal authorize a route for an admitted principal: `undefined` to go on, else the answer. */
export function permit<R>(gate: Gate, principal: Principal | null, route: RouteCheck<R>, req: R): ErrorAnswer | undefined {
  if (principal === null) {
    const error = new AuthenticationError('missing', 'this route needs a credential');
    return refuse(gate, { principal, permission: route.permission, error }, req);
  }
  const asked: Refusal = { principal, permission: route.permission };
  try {
    asked.resource = route.resource(req);
    asked.thing = route.thing?.(req);
    const decision = gate.auth.authorize(principal, asked.resource, route.permission, asked.thing);
    // Anything but an explicit allow is a denial: fail closed on a broken authorize.
    if (decision?.allowed === true) {
      // Checked here, not in admitted: an allowed request builds nothing for a hook nobody gave.
      if (gate.onDecision !== undefined) admitted(gate, { ...asked, decision }, req);
      return undefined;
    }
    return refuse(gate, { ...asked, decision }, req);
  } catch (err) {
    return refuse(gate, { ...asked, error: err }, req);
  }
}

/** @internal tell `onDecision` that `req` goes on (a principal, or `null` on an `optional` adapter without a credential). */
export function admitted(gate: Gate, allowed: Refusal, req: unknown): void {
  if (gate.onDecision !== undefined) gate.onDecision(decided(true, allowed), req);
}

/**
 * @internal every refusal of every guard (401, 403, 400 for an invalid
 * request, 5xx when a dependency failed) is answered here and only here, so
 * an audit event for a denied access is one line in this function.
 */
export function refuse(gate: Gate, refusal: Refusal, req: unknown): ErrorAnswer {
  const answer = refusal.decision !== undefined ? decisionError(refusal.decision, gate) : errorAnswer(refusal.error, gate);
  if (answer.status >= 500) report(gate, refusal.error);
  // Heard before the answer is written; the answer is already decided and the hook cannot change it.
  if (gate.onDecision !== undefined) gate.onDecision(decided(false, refusal, answer.status), req);
  const { decision, principal } = refusal;
  // The one place every guard and adapter denies: the audit hook hears each access.denied here.
  if (decision !== undefined && !decision.allowed && principal && refusal.resource !== undefined && refusal.permission !== undefined) {
    reportDenied(gate.auth, principal, refusal.resource, refusal.permission, decision.reason, refusal.thing);
  }
  return answer;
}

/** @internal an error thrown after admission (by a handler or the next middleware), answered per H2. */
export function failed(gate: Gate, err: unknown): ErrorAnswer {
  const answer = errorAnswer(err, gate);
  if (answer.status >= 500) report(gate, err);
  return answer;
}

/** @internal hand an error to `onError` (guarded when the gate was built: a failing logger must not turn an answer into a crash). */
export function report(gate: Gate, err: unknown): void {
  gate.onError(err);
}

// Distinct expiry instants remembered per guard; past it the memo starts over
// (a flood of distinct tokens costs a toISOString each, never memory).
const MAX_EXPIRY_TEXTS = 4096;

/** @internal the value of {@link EXPIRATION_HEADER} for this principal, or `undefined` when off or anonymous. */
export function expiration(gate: Gate, principal: Principal | null): string | undefined {
  if (!gate.expirationHeader || principal === null) return undefined;
  const at = principal.expiresAt;
  if (!(at instanceof Date)) return undefined;
  const ms = at.getTime();
  // A hot token has the same expiry on every request; formatting a Date was a
  // visible share of a guarded request, so the text is kept, within a bound.
  let text = gate.expiryText.get(ms);
  if (text === undefined) {
    if (!Number.isFinite(ms)) return undefined;
    text = at.toISOString();
    if (gate.expiryText.size >= MAX_EXPIRY_TEXTS) gate.expiryText.clear();
    gate.expiryText.set(ms, text);
  }
  return text;
}
