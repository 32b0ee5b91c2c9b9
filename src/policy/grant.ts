/**
 * `createGrant`: a user's roles and a token's scope layers, compiled into a
 * table that `authorize` answers from in a few lookups (CASL-style: compile
 * once, decide cheaply). Every org and repo named in the roles or in any
 * layer gets its own precomputed row; repos not named anywhere share their
 * org's default row, and orgs not named anywhere share constant rows
 * (nothing held, so the role cap denies).
 * @module
 */
import { SvcAuthError, ValidationError, type IssueInput } from '../errors';
import { isRoleName, roleMasks, type RoleName } from '../vocabulary';
import { NAME_PATTERN, parseResource } from '../scopes/names';
import type { Scope } from '../scopes/types';
import type { ThingMatcher } from '../scopes/glob';
import { fold } from './fold';
import { ALLOW, DENY_INVALID, DENY_ROLE, DENY_SCOPE, DENY_THING, type Decision } from './decision';
import { compileLayer, layerData, isPlainObject, kindOf, preview, NONE, FREE, type CompiledLayer, type LayerData, type Tier } from './compile';
import type { UserRoles } from './types';

/** @internal what the table says about one resource, by permission index. */
export interface ResourcePolicy {
  /** The decision when no thing name is given. */
  readonly plain: readonly Decision[];
  /** The decision when a valid thing name is given, before the matchers run. */
  readonly withThing: readonly Decision[];
  /** When `withThing` is ALLOW: matchers the thing name must all pass (one per restricting layer), or null. */
  readonly matchers: readonly (readonly ThingMatcher[] | null)[];
}

/** @internal the compiled table of a grant. */
export interface GrantTable {
  /** Exact lowercase `org` and `org/repo` keys. */
  readonly exact: ReadonlyMap<string, ResourcePolicy>;
  /** Per known org: the row of every repo of that org not in `exact`. */
  readonly repoDefault: ReadonlyMap<string, ResourcePolicy>;
}

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
}

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
 * case-insensitively. Throws `ValidationError`, listing every problem, for
 * unknown role names, bad org or repo keys (`__proto__` included), unknown
 * input keys, or invalid scopes.
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

function build(input: unknown, issues: IssueInput[]): GrantTable | null {
  if (!isPlainObject(input)) {
    issues.push({ path: '', message: `expected { roles, layers? }, got ${kindOf(input)}` });
    return null;
  }
  for (const k of Object.keys(input)) {
    if (k !== 'roles' && k !== 'layers') issues.push({ path: `[${preview(k)}]`, message: 'unknown key' });
  }
  const rec = input;
  const roles = readRoles(rec['roles'], issues);
  const layers = readLayers(rec['layers'], issues);
  if (roles === null || layers === null || issues.length > 0) return null;
  return compileTable(roles, layers);
}

interface RoleMaps {
  readonly orgs: Map<string, RoleName>;
  readonly repos: Map<string, RoleName>;
}

function readRoles(value: unknown, issues: IssueInput[]): RoleMaps | null {
  if (!isPlainObject(value)) {
    issues.push({ path: 'roles', message: `expected { orgs?, repos? }, got ${kindOf(value)}` });
    return null;
  }
  for (const k of Object.keys(value)) {
    if (k !== 'orgs' && k !== 'repos') issues.push({ path: `roles[${preview(k)}]`, message: 'unknown key' });
  }
  const rec = value;
  const orgs = readRoleMap(rec['orgs'], 'roles.orgs', false, issues);
  const repos = readRoleMap(rec['repos'], 'roles.repos', true, issues);
  return { orgs, repos };
}

function readRoleMap(value: unknown, path: string, repoKeys: boolean, issues: IssueInput[]): Map<string, RoleName> {
  const out = new Map<string, RoleName>();
  if (value === undefined) return out;
  // A Map or a class instance would read as empty: no access, silently. Refuse it instead.
  if (!isPlainObject(value)) {
    issues.push({ path, message: `expected a plain object of role names, got ${kindOf(value)}` });
    return out;
  }
  for (const key of Object.keys(value)) {
    // Paths are built only for issues: this runs on every authenticate.
    const at = () => `${path}[${preview(key)}]`;
    // Read through the descriptor: a getter could answer differently on each read.
    const desc = Object.getOwnPropertyDescriptor(value, key);
    const role: unknown = desc !== undefined && 'value' in desc ? desc.value : undefined;
    const ref = repoKeys ? parseResource(key) : NAME_PATTERN.test(key) ? parseResource(key) : null;
    if (ref === null || (repoKeys && ref.repo === undefined)) {
      issues.push({ path: at(), message: repoKeys ? 'key must be "<org>/<repo>"' : 'key must be an org name' });
      continue;
    }
    if (!isRoleName(role)) {
      issues.push({ path: at(), message: 'role must be one of owner, admin, editor, viewer' });
      continue;
    }
    const seen = out.get(ref.key);
    if (seen !== undefined && seen !== role) {
      issues.push({ path: at(), message: `conflicts with another key that differs only in case (${seen})` });
      continue;
    }
    out.set(ref.key, role);
  }
  return out;
}

function readLayers(value: unknown, issues: IssueInput[]): LayerData[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push({ path: 'layers', message: `expected an array of scope lists, got ${kindOf(value)}` });
    return null;
  }
  const out: LayerData[] = [];
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const item: unknown = value[i];
    let data = layerData(item);
    if (data === undefined) {
      try {
        data = layerData(compileLayer(item as readonly Scope[]));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const issue of err.issues) issues.push({ code: issue.code, path: ['layers', i, ...issue.path], message: issue.message });
      }
    }
    if (data !== undefined) out.push(data);
  }
  return out;
}

function compileTable(roles: RoleMaps, layers: readonly LayerData[]): GrantTable {
  const orgKeys = new Set<string>(roles.orgs.keys());
  const repoKeys = new Set<string>(roles.repos.keys());
  for (const layer of layers) {
    for (const o of layer.orgs.keys()) orgKeys.add(o);
    for (const r of layer.repos.keys()) repoKeys.add(r);
  }
  for (const r of repoKeys) orgKeys.add(r.slice(0, r.indexOf('/')));

  const exact = new Map<string, ResourcePolicy>();
  const repoDefault = new Map<string, ResourcePolicy>();
  const nLayers = layers.length;
  const tiers: (Tier | null)[] = new Array<Tier | null>(nLayers);
  for (const o of orgKeys) {
    const role = roles.orgs.get(o);
    for (let i = 0; i < nLayers; i++) {
      const l = layers[i] as LayerData;
      tiers[i] = l.orgs.get(o) ?? l.global;
    }
    exact.set(o, orgPolicy(role === undefined ? 0 : ORG_BITS[role], tiers));
    repoDefault.set(o, repoPolicy(role === undefined ? 0 : REPO_BITS[role], tiers));
  }
  for (const key of repoKeys) {
    const o = key.slice(0, key.indexOf('/'));
    const orgRole = roles.orgs.get(o);
    const repoRole = roles.repos.get(key);
    const cap = (orgRole === undefined ? 0 : REPO_BITS[orgRole]) | (repoRole === undefined ? 0 : REPO_BITS[repoRole]);
    for (let i = 0; i < nLayers; i++) {
      const l = layers[i] as LayerData;
      tiers[i] = l.repos.get(key) ?? l.orgs.get(o) ?? l.global;
    }
    exact.set(key, repoPolicy(cap, tiers));
  }
  return { exact, repoDefault };
}

const REPO_BITS: Readonly<Record<RoleName, number>> = Object.freeze({
  owner: roleMasks('owner').repo,
  admin: roleMasks('admin').repo,
  editor: roleMasks('editor').repo,
  viewer: roleMasks('viewer').repo,
});
const ORG_BITS: Readonly<Record<RoleName, number>> = Object.freeze({
  owner: roleMasks('owner').org,
  admin: roleMasks('admin').org,
  editor: roleMasks('editor').org,
  viewer: roleMasks('viewer').org,
});

// Rows that depend on the role cap alone (no layers: sessions, unscoped
// tokens) are shared, so such a grant allocates only its two Maps. Rows are
// internal to a Grant (never handed out), so they are not frozen one by one.
const REPO_ROWS_NO_LAYERS: ResourcePolicy[] = [];
const ORG_ROWS_NO_LAYERS: ResourcePolicy[] = [];

/**
 * One row for a repository: `cap` is the role cap's repo bits, `tiers` the
 * tier each layer picked for this resource (null: no tier, so `scope`).
 * Across layers a missing permission (`scope`) is reported before a
 * thing-name restriction (`thing`), whatever the layer order.
 */
function repoPolicy(cap: number, tiers: readonly (Tier | null)[]): ResourcePolicy {
  const n = tiers.length;
  if (n === 0) {
    const shared = REPO_ROWS_NO_LAYERS[cap];
    if (shared !== undefined) return shared;
  }
  const plain: Decision[] = [DENY_ROLE, DENY_ROLE, DENY_ROLE, DENY_ROLE, DENY_INVALID, DENY_INVALID, DENY_INVALID];
  const matchers: (readonly ThingMatcher[] | null)[] = [null, null, null, null, null, null, null];
  for (let pi = 0; pi < 4; pi++) {
    if ((cap & (1 << pi)) === 0) continue;
    let scope = false;
    let emptyList = false;
    let ms: ThingMatcher[] | null = null;
    for (let i = 0; i < n; i++) {
      const tier = tiers[i];
      const slot = tier == null ? NONE : tier[pi];
      if (slot === NONE || slot === undefined) scope = true;
      else if (slot !== FREE) {
        if (slot.empty) emptyList = true;
        else (ms ??= []).push(slot.match);
      }
    }
    const d = scope ? DENY_SCOPE : emptyList ? DENY_THING : ALLOW;
    plain[pi] = d;
    if (d === ALLOW) matchers[pi] = ms === null ? null : fold(ms);
  }
  // With a valid thing name the answer before matchers equals the plain one on a repo row.
  const row: ResourcePolicy = { plain, withThing: plain, matchers };
  if (n === 0) REPO_ROWS_NO_LAYERS[cap] = row;
  return row;
}

/** One row for an organization: `cap` is the org part of the org role. Thing names never apply (A1). */
function orgPolicy(cap: number, tiers: readonly (Tier | null)[]): ResourcePolicy {
  const n = tiers.length;
  if (n === 0) {
    const shared = ORG_ROWS_NO_LAYERS[cap];
    if (shared !== undefined) return shared;
  }
  const plain: Decision[] = [DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_ROLE, DENY_ROLE, DENY_ROLE];
  for (let pi = 4; pi < 7; pi++) {
    if ((cap & (1 << pi)) === 0) continue;
    let d = ALLOW;
    for (let i = 0; i < n; i++) {
      const tier = tiers[i];
      if (tier == null || tier[pi] !== FREE) d = DENY_SCOPE;
    }
    plain[pi] = d;
  }
  const row: ResourcePolicy = { plain, withThing: INVALID_ROW, matchers: NO_MATCHERS };
  if (n === 0) ORG_ROWS_NO_LAYERS[cap] = row;
  return row;
}

const INVALID_ROW: readonly Decision[] = Object.freeze([DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_INVALID]);
const NO_MATCHERS: readonly null[] = Object.freeze([null, null, null, null, null, null, null]);

/** @internal the row of an org named nowhere: the user holds nothing there. */
export const UNKNOWN_ORG: ResourcePolicy = orgPolicy(0, []);
/** @internal the row of a repo of an org named nowhere. */
export const UNKNOWN_REPO: ResourcePolicy = repoPolicy(0, []);
