/**
 * One scope layer compiled for decisions (A4). A token's scopes never change,
 * so the service compiles them once per token and every request reuses the
 * result; `createGrant` also accepts raw scopes and compiles them itself.
 *
 * The layer goes through the one scope validator (`normalizeScopes`' strict
 * mode) rather than a check of its own: records come back from stores, and a
 * scope list that is not what `normalizeScopes` returns must fail loudly, with
 * the same issues, not widen or narrow in silence.
 * @module
 */
import { ValidationError } from '../../errors';
import { permissionIndex } from '../vocabulary';
import { compileMatcherForValidNames, checkNormalizedScopes, type Scope, type ThingMatcher } from '../scopes';

/** The entry lists the permission and sets no `allowedMatches`. */
export const FREE = 1;
/** No entry of the tier lists the permission. */
export const NONE = 0;

/** The entry lists the permission and restricts thing names. */
export interface PatternSlot {
  /** Only for names already checked with `isValidThingName`. */
  readonly match: ThingMatcher;
  /** `allowedMatches` is `[]`: denies every thing, and the no-thing case too (A4). */
  readonly empty: boolean;
}

/** What one tier says about one permission. */
export type Slot = typeof NONE | typeof FREE | PatternSlot;

/** One tier for one resource: a slot per permission index. */
export type Tier = readonly Slot[];

/** @internal the parts of a compiled layer the grant compiler reads. */
export interface LayerData {
  readonly global: Tier | null;
  readonly orgs: ReadonlyMap<string, Tier>;
  readonly repos: ReadonlyMap<string, Tier>;
}

const INTERNAL = Symbol('svc-auth.compiled-layer');
let readLayer: (value: unknown) => LayerData | undefined;

/**
 * One token's scopes, compiled: tiers keyed by lowercase resource, thing-name
 * patterns turned into matchers. Opaque and immutable; build it with
 * {@link compileLayer} and pass it to `createGrant` as many times as you like.
 *
 * @example
 * ```ts
 * const own = compileLayer([{ resource: 'acme/web', permissions: ['repo:read'] }]);
 * own instanceof CompiledLayer; // true
 * const grant = createGrant({ roles: { orgs: { acme: 'editor' } }, layers: [own] });
 * ```
 */
export class CompiledLayer {
  readonly #data: LayerData;

  /** @internal use {@link compileLayer}. */
  constructor(key: symbol, data: LayerData) {
    if (key !== INTERNAL) throw new ValidationError('use compileLayer(scopes) to build a CompiledLayer');
    this.#data = data;
    Object.freeze(this);
  }

  static {
    readLayer = (value) => (typeof value === 'object' && value !== null && #data in value ? value.#data : undefined);
  }
}

/** @internal the data of a real compiled layer, or `undefined` for anything else (proxies included). */
export function layerData(value: unknown): LayerData | undefined {
  return readLayer(value);
}

/**
 * Compile one scope layer (a token's validated scopes, as `normalizeScopes`
 * returns them). An empty list is a layer that denies everything (A5). The
 * scopes go through the one scope validator (`normalizeScopes`' strict mode)
 * first, so a list that is not what `normalizeScopes` returns fails loudly with
 * the same issues and paths `normalizeScopes` would give: unknown or `role:`
 * permissions (expand roles first), org permissions or `allowedMatches` outside
 * a repo entry, a repeated (resource, permission) pair, a pattern outside the
 * safe glob subset, more than the limits of S6/S8.
 *
 * @example
 * ```ts
 * const layer = compileLayer([
 *   { resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] },
 *   { resource: 'acme', permissions: ['org:read'] },
 * ]);
 * authorize(createGrant({ roles, layers: [layer] }), 'acme/web', 'repo:read', 'Doc/a'); // allowed if roles allow
 * ```
 */
export function compileLayer(scopes: readonly Scope[]): CompiledLayer {
  return new CompiledLayer(INTERNAL, buildLayer(checkNormalizedScopes(scopes)));
}

/** Tiers from scopes the validator accepted: nothing here checks again. */
function buildLayer(scopes: readonly Scope[]): LayerData {
  let global: Slot[] | null = null;
  const orgs = new Map<string, Slot[]>();
  const repos = new Map<string, Slot[]>();
  for (const scope of scopes) {
    let tier: Slot[];
    if (scope.resource === undefined) {
      tier = global ??= emptyTier();
    } else {
      const map = scope.resource.includes('/') ? repos : orgs;
      tier = map.get(scope.resource) ?? emptyTier();
      map.set(scope.resource, tier);
    }
    // authorize checks the thing name once per decision, before any matcher runs.
    const m = scope.allowedMatches;
    const slot: Slot = m === undefined ? FREE : Object.freeze({ match: compileMatcherForValidNames(m), empty: m.length === 0 });
    for (const p of scope.permissions) tier[permissionIndex(p)] = slot;
  }
  return { global, orgs, repos };
}

function emptyTier(): Slot[] {
  return [NONE, NONE, NONE, NONE, NONE, NONE, NONE];
}

/** @internal a short, safe description of a value's kind for messages; never the value itself. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** @internal a key shown in an issue path, cut short so that a hostile key cannot flood a message. */
export function preview(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}
