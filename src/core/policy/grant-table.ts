/**
 * The compiled table behind a Grant: one precomputed row per org and repo
 * named in the roles or in any layer, a shared default row for the other
 * repos of a named org, and constant rows for orgs named nowhere (nothing
 * held, so the role cap denies). An org with a gate (G2) always gets its own
 * rows, where the gate's `policy` decision replaces what the role cap allows.
 * @module
 */
import { roleMasks, type RoleName } from '../vocabulary';
import type { ThingMatcher } from '../scopes';
import { fold, foldValidating } from './fold';
import { ALLOW, DENY_INVALID, DENY_ROLE, DENY_SCOPE, DENY_THING, type Decision } from './decision';
import { NONE, FREE, type LayerData, type Tier } from './compile';
import type { CompiledGate } from './gates';

/** @internal what the table says about one resource, by permission index. */
export interface ResourcePolicy {
  /** The decision when no thing name is given. */
  readonly plain: readonly Decision[];
  /** The decision when a valid thing name is given, before the matchers run. */
  readonly withThing: readonly Decision[];
  /** When `withThing` is ALLOW: matchers the thing name must all pass (one per restricting layer), or null. */
  readonly matchers: readonly (readonly ThingMatcher[] | null)[];
  /**
   * Beside `matchers`, when they fold into one RegExp: a test that passes
   * exactly the valid thing names (S7) all of them accept, or null.
   */
  readonly whole: readonly (ThingMatcher | null)[];
}

/** @internal the compiled table of a grant. */
export interface GrantTable {
  /** Exact lowercase `org` and `org/repo` keys. */
  readonly exact: ReadonlyMap<string, ResourcePolicy>;
  /** Per known org: the row of every repo of that org not in `exact`. */
  readonly repoDefault: ReadonlyMap<string, ResourcePolicy>;
  /**
   * Rows found for resources that are not exact keys (another case, a repo
   * the grant does not name), by their text as asked: a request for the same
   * resource again is one lookup instead of a scan (see `authorize.ts`).
   * Bounded by `MAX_SEEN`; a pure memo of `missRow`, so it never changes an answer.
   */
  readonly seen: Map<string, ResourcePolicy>;
}

/** @internal a user's roles, keys lowercase. */
export interface RoleMaps {
  readonly orgs: Map<string, RoleName>;
  readonly repos: Map<string, RoleName>;
}

/** @internal the table of validated roles and layers. */
export function compileTable(roles: RoleMaps, layers: readonly LayerData[], gates: ReadonlyMap<string, CompiledGate>): GrantTable {
  const orgKeys = new Set<string>(roles.orgs.keys());
  // A gated org gets its own rows, so its unknown repos take the gated default row.
  for (const o of gates.keys()) orgKeys.add(o);
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
    let viaGlobal = false;
    for (let i = 0; i < nLayers; i++) {
      const l = layers[i] as LayerData;
      const own = l.orgs.get(o);
      if (own === undefined && l.global !== null) viaGlobal = true;
      tiers[i] = own ?? l.global;
    }
    const gate = gateDecision(gates.get(o), nLayers, viaGlobal);
    exact.set(o, orgPolicy(role === undefined ? 0 : ORG_BITS[role], tiers, gate));
    repoDefault.set(o, repoPolicy(role === undefined ? 0 : REPO_BITS[role], tiers, gate));
  }
  for (const key of repoKeys) {
    const o = key.slice(0, key.indexOf('/'));
    const orgRole = roles.orgs.get(o);
    const repoRole = roles.repos.get(key);
    const cap = (orgRole === undefined ? 0 : REPO_BITS[orgRole]) | (repoRole === undefined ? 0 : REPO_BITS[repoRole]);
    let viaGlobal = false;
    for (let i = 0; i < nLayers; i++) {
      const l = layers[i] as LayerData;
      const own = l.repos.get(key) ?? l.orgs.get(o);
      if (own === undefined && l.global !== null) viaGlobal = true;
      tiers[i] = own ?? l.global;
    }
    exact.set(key, repoPolicy(cap, tiers, gateDecision(gates.get(o), nLayers, viaGlobal)));
  }
  return { exact, repoDefault, seen: new Map() };
}

/**
 * The `policy` decision that replaces whatever the role cap allows on one
 * resource, or null when the gate lets the layers decide: `blocked` always
 * refuses; `scopedOnly` refuses a grant without layers (full access) and one
 * where some layer reaches the resource only through its global tier (a layer
 * with no tier at all stays a `scope` denial).
 */
function gateDecision(gate: CompiledGate | undefined, nLayers: number, viaGlobal: boolean): Decision | null {
  if (gate === undefined) return null;
  if (gate.kind === 'blocked' || nLayers === 0 || viaGlobal) return gate.decision;
  return null;
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
function repoPolicy(cap: number, tiers: readonly (Tier | null)[], gate: Decision | null = null): ResourcePolicy {
  const n = tiers.length;
  const shareable = n === 0 && gate === null;
  if (shareable) {
    const shared = REPO_ROWS_NO_LAYERS[cap];
    if (shared !== undefined) return shared;
  }
  const plain: Decision[] = [DENY_ROLE, DENY_ROLE, DENY_ROLE, DENY_ROLE, DENY_INVALID, DENY_INVALID, DENY_INVALID];
  const matchers: (readonly ThingMatcher[] | null)[] = [null, null, null, null, null, null, null];
  const whole: (ThingMatcher | null)[] = [null, null, null, null, null, null, null];
  for (let pi = 0; pi < 4; pi++) {
    if ((cap & (1 << pi)) === 0) continue;
    if (gate !== null) {
      plain[pi] = gate;
      continue;
    }
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
    if (d === ALLOW && ms !== null) {
      matchers[pi] = fold(ms);
      whole[pi] = foldValidating(ms);
    }
  }
  // With a valid thing name the answer before matchers equals the plain one on a repo row.
  const row: ResourcePolicy = { plain, withThing: plain, matchers, whole };
  if (shareable) REPO_ROWS_NO_LAYERS[cap] = row;
  return row;
}

/** One row for an organization: `cap` is the org part of the org role. Thing names never apply (A1). */
function orgPolicy(cap: number, tiers: readonly (Tier | null)[], gate: Decision | null = null): ResourcePolicy {
  const n = tiers.length;
  const shareable = n === 0 && gate === null;
  if (shareable) {
    const shared = ORG_ROWS_NO_LAYERS[cap];
    if (shared !== undefined) return shared;
  }
  const plain: Decision[] = [DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_INVALID, DENY_ROLE, DENY_ROLE, DENY_ROLE];
  for (let pi = 4; pi < 7; pi++) {
    if ((cap & (1 << pi)) === 0) continue;
    if (gate !== null) {
      plain[pi] = gate;
      continue;
    }
    let d = ALLOW;
    for (let i = 0; i < n; i++) {
      const tier = tiers[i];
      if (tier == null || tier[pi] !== FREE) d = DENY_SCOPE;
    }
    plain[pi] = d;
  }
  const row: ResourcePolicy = { plain, withThing: INVALID_ROW, matchers: NO_MATCHERS, whole: NO_MATCHERS };
  if (shareable) ORG_ROWS_NO_LAYERS[cap] = row;
  return row;
}

const INVALID_ROW: readonly Decision[] = Object.freeze([
  DENY_INVALID,
  DENY_INVALID,
  DENY_INVALID,
  DENY_INVALID,
  DENY_INVALID,
  DENY_INVALID,
  DENY_INVALID,
]);
const NO_MATCHERS: readonly null[] = Object.freeze([null, null, null, null, null, null, null]);

/** @internal the row of an org named nowhere: the user holds nothing there. */
export const UNKNOWN_ORG: ResourcePolicy = orgPolicy(0, []);
/** @internal the row of a repo of an org named nowhere. */
export const UNKNOWN_REPO: ResourcePolicy = repoPolicy(0, []);
