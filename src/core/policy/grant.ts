/**
 * `createGrant`: a user's roles and a token's scope layers, compiled into a
 * table that `authorize` answers from in a few lookups (CASL-style: compile
 * once, decide cheaply). Every org and repo named in the roles or in any
 * layer gets its own precomputed row; repos not named anywhere share their
 * org's default row, and orgs not named anywhere share constant rows
 * (nothing held, so the role cap denies).
 * @module
 */
import { SvcAuthError, ValidationError, type IssueInput } from '../../errors';
import type { Scope } from '../scopes';
import type { CompiledLayer } from './compile';
import type { GrantTable } from './grant-table';
import { build } from './role-input';
import type { UserRoles } from './types';

/**
 * Input of {@link createGrant}.
 *
 * @example
 * ```ts
 * const input: GrantInput = { roles: { orgs: { acme: 'editor' } }, layers: [ownScopes, parentScopes] };
 * ```
 */
export interface GrantInput {
  /** The user's memberships (the role cap, A3). */
  roles: UserRoles;
  /** Scope layers: the token's own scopes first, then each ancestor's (A5). Omit for a session or an unscoped token. */
  layers?: readonly (readonly Scope[] | CompiledLayer)[];
  /**
   * Orgs whose policy limits this grant (G2), keys compared case-insensitively.
   * Checked after the role cap and before the scopes: a denial there has reason
   * `policy` and carries the gate's message.
   */
  orgGates?: Readonly<Record<string, OrgGate>>;
}

/**
 * What an org's policy does to one grant (G2): `blocked` refuses every
 * permission in the org (and its repos); `scopedOnly` lets the token in only
 * through entries that name the org (`acme`, `acme/<repo>`) in every layer,
 * so a full-access grant or a global-tier entry is refused there. The text is
 * the message of the `policy` decision.
 *
 * @example
 * ```ts
 * const gates: Record<string, OrgGate> = {
 *   acme: { blocked: "the organization 'acme' has not approved this token yet" },
 *   globex: { scopedOnly: "the organization 'globex' admits only tokens that name it" },
 * };
 * ```
 */
export type OrgGate = { readonly blocked: string } | { readonly scopedOnly: string };

const INTERNAL = Symbol('svc-auth.grant');
let readTable: (value: unknown) => GrantTable | undefined;

/**
 * A compiled grant: what one caller may do. Opaque and immutable; build it
 * with {@link createGrant} and ask it with `authorize`.
 *
 * @example
 * ```ts
 * const grant = createGrant({ roles: { orgs: { acme: 'viewer' } } });
 * grant instanceof Grant;                       // true
 * authorize(grant, 'acme/web', 'repo:read');    // ALLOW
 * ```
 */
export class Grant {
  readonly #table: GrantTable;

  /** @internal use {@link createGrant}. */
  constructor(key: symbol, table: GrantTable) {
    if (key !== INTERNAL) throw new ValidationError('use createGrant(input) to build a Grant');
    this.#table = table;
    Object.freeze(this);
  }

  static {
    // `#x in v` is false for a Proxy and for look-alike objects, so only a real Grant passes.
    readTable = (value) => (typeof value === 'object' && value !== null && #table in value ? value.#table : undefined);
  }
}

/** @internal the table of a real grant, or `undefined` for anything else. Never throws for a non-Proxy. */
export function grantTable(value: unknown): GrantTable | undefined {
  return readTable(value);
}

/**
 * Compile a user's roles and a token's scope layers into a {@link Grant}.
 * `layers` holds the token's own scopes first, then each ancestor's; each may
 * be raw scopes or a layer from `compileLayer` (compile a token's scopes once
 * and reuse it). No layers means the role cap alone (a session, an unscoped
 * token); a layer `[]` denies everything. Role map keys compare
 * case-insensitively. `orgGates` adds an org's policy (G2): see {@link OrgGate}.
 * Throws `ValidationError`, listing every problem, for unknown role names,
 * bad org or repo keys (`__proto__` included), unknown input keys, invalid
 * scopes, or gates that are not `{ blocked }` / `{ scopedOnly }` with a
 * message of 1 to 2048 characters (at most 10 000 gates).
 *
 * @example
 * ```ts
 * const grant = createGrant({
 *   roles: { orgs: { acme: 'editor' }, repos: { 'acme/secrets': 'viewer' } },
 *   layers: [[{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }]],
 * });
 * authorize(grant, 'acme/web', 'repo:write', 'Doc/readme'); // ALLOW
 * authorize(grant, 'acme/web', 'repo:write', 'Img/logo');   // DENY_THING
 * authorize(grant, 'acme/api', 'repo:read');                // DENY_SCOPE
 * ```
 */
export function createGrant(input: GrantInput): Grant {
  const issues: IssueInput[] = [];
  let table: GrantTable | null;
  try {
    table = build(input, issues);
  } catch (err) {
    if (err instanceof SvcAuthError) throw err;
    // Throwing getters and Proxy traps end as a typed error too.
    throw new ValidationError([{ path: '', message: 'grant input could not be read' }], { cause: err });
  }
  if (issues.length > 0 || table === null) throw new ValidationError(issues);
  return new Grant(INTERNAL, table);
}
