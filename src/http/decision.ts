/**
 * What a guard tells its `onDecision` hook: the one record of a guard's
 * decision on a request, built only when a hook listens.
 * @module
 */
import type { Decision, Principal } from '../core/policy';
import type { Permission } from '../core/vocabulary';

/**
 * What a guard decided for one request, as its `onDecision` hook hears it:
 * the principal or the refusal, what was asked, and `auth.authorize`'s
 * decision when it was asked. One call per decision, so a caller can log,
 * count or audit without running the guard's sequence again.
 *
 * @example
 * ```ts
 * const onDecision = (d: GuardDecision): void => {
 *   const who = d.principal?.userId ?? '-';
 *   const why = d.allowed ? 'allow' : (d.decision?.allowed === false ? d.decision.reason : String(d.status));
 *   console.log(`${who} ${d.permission ?? 'authenticate'} ${d.resource ?? ''} ${why}`);
 * };
 * ```
 */
export interface GuardDecision {
  /** `true`: the request goes on to the handler; `false`: the guard answered it with a refusal. */
  readonly allowed: boolean;
  /** Whose credential it was; `null` when the credential was refused, or missing on an `optional` adapter. */
  readonly principal: Principal | null;
  /** The permission asked, when the guard checks one (`permission` of `requireAuth`/`withAuth`, an adapter's `requirePermission`). */
  readonly permission?: Permission;
  /** The resource asked, when the guard checks a permission and could read it. */
  readonly resource?: string;
  /** The thing name asked, when the route names one. */
  readonly thing?: string;
  /** What `auth.authorize` decided, when it was asked. */
  readonly decision?: Decision;
  /**
   * What stopped the request when it was not a decision: an `AuthenticationError` (401; its
   * `reason`, and `tokenId` once the signature verified), an `UnavailableError` (503), a
   * `ValidationError` (400) or someone else's error (500).
   */
  readonly error?: unknown;
  /** The status of the refusal the guard answers with; absent when allowed. */
  readonly status?: number;
}

/**
 * @internal What a guard knew when it decided: a refusal as `refuse` in gate.ts sees it (the one
 * place where every guard denies), or what an allow was asked.
 */
export interface Refusal {
  /** The authenticated principal, when authentication got that far. */
  principal?: Principal | null;
  /** What was asked, when the refusal is an authorization decision. */
  permission?: Permission;
  resource?: string;
  thing?: string | undefined;
  /** The denying decision, or the error that stopped the request. */
  decision?: Decision;
  error?: unknown;
}

/** @internal the decision `onDecision` hears: only the fields that apply, frozen so that one hook cannot change what another hears. */
export function decided(allowed: boolean, r: Refusal, status?: number): GuardDecision {
  const d: { -readonly [K in keyof GuardDecision]: GuardDecision[K] } = { allowed, principal: r.principal ?? null };
  if (r.permission !== undefined) d.permission = r.permission;
  if (r.resource !== undefined) d.resource = r.resource;
  if (r.thing !== undefined) d.thing = r.thing;
  if (r.decision !== undefined) d.decision = r.decision;
  if (r.error !== undefined) d.error = r.error;
  if (status !== undefined) d.status = status;
  return Object.freeze(d);
}
