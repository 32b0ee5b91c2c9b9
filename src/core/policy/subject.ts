/**
 * Who a decision is about. The service layer builds a {@link Principal} when it
 * authenticates a credential and attaches the compiled grant to it under a
 * private, non-enumerable slot, so that `authorize(principal, …)` is a lookup
 * and a copy of the principal (spread, JSON, structuredClone) carries no grant
 * and is refused as `invalid` (A1).
 * @module
 */
import type { Permission, ServiceAccountRef } from '../vocabulary';
import { grantTable } from './grant';
import type { GrantTable } from './grant-table';

/**
 * Where a session from a trusted identity provider came from (T10), read from its verified
 * token, so that nobody decodes the JWT a second time.
 *
 * @example
 * ```ts
 * const p = await auth.authenticate(token); // an access token of a trusted issuer
 * p.issuedBy?.issuer;      // 'https://sso.example.com/realms/acme'
 * p.issuedBy?.clientId;    // 'mcp-inspector' (its client_id, else azp), or null
 * p.issuedBy?.permissions; // ['repo:read'] when its scope narrowed it, null when not
 * ```
 */
export interface IssuedBy {
  /** The trusted issuer, as configured (`iss`). */
  readonly issuer: string;
  /** The OAuth client the token was issued to (`client_id` of RFC 9068, else `azp`), or `null`. */
  readonly clientId: string | null;
  /** The svc permissions its `scope`/`scp` claim grants (maybe none), or `null` when the claim does not narrow it. */
  readonly permissions: readonly Permission[] | null;
}

/**
 * An authenticated caller, as returned by `auth.authenticate`. Opaque for
 * `authorize`: pass the very object you received.
 *
 * @example
 * ```ts
 * const p = await auth.authenticate(token);
 * p.kind;   // 'pat'
 * auth.authorize(p, 'acme/web', 'repo:read');
 * ```
 */
export interface Principal {
  readonly kind: 'session' | 'pat' | 'component';
  readonly userId: string;
  readonly tokenId?: string;
  readonly tokenName?: string;
  readonly expiresAt: Date;
  readonly committerIdentity?: string;
  /** A session from a trusted issuer's access token: where it came from. Absent for every other principal. */
  readonly issuedBy?: IssuedBy;
  /** The service account whose credential this is (`userId` is then `sa:<org>/<name>`); `null` for a person. */
  readonly serviceAccount: ServiceAccountRef | null;
}

/**
 * @internal the private slot; not exported from the package root. The
 * service's principals serve their grant under it; only this module reads it
 * (through {@link tableOf} and {@link isPrincipal}).
 */
export const GRANT_SLOT: unique symbol = Symbol('svc-auth.grant');

/** The grant a principal carries, if it is a real one: a copy or a look-alike carries none. */
function slotTable(subject: unknown): GrantTable | undefined {
  if (typeof subject !== 'object' || subject === null) return undefined;
  return grantTable((subject as { [GRANT_SLOT]?: unknown })[GRANT_SLOT]);
}

/**
 * @internal the compiled table a decision reads: a `Grant`'s own, or
 * the grant a real principal carries; `undefined` for anything else (a copy,
 * a forged object). A throwing Proxy trap throws: callers decide on it.
 */
export function tableOf(subject: unknown): GrantTable | undefined {
  return grantTable(subject) ?? slotTable(subject);
}

/**
 * @internal whether `p` is a principal some `auth.authenticate` returned (of
 * any `Auth` instance): it carries a real grant. A spread copy, a JSON round
 * trip or a look-alike object does not. For `svc-auth/mcp`, which must tell a
 * principal from a forged `extra`; never throws.
 *
 * @example
 * ```ts
 * isPrincipal(await auth.authenticate(token)); // true
 * isPrincipal({ ...principal });               // false
 * ```
 */
export function isPrincipal(p: unknown): p is Principal {
  try {
    return slotTable(p) !== undefined;
  } catch {
    // A throwing getter or Proxy trap: not a principal.
    return false;
  }
}
