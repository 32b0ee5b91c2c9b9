/**
 * One scope layer compiled for decisions (A4). A token's scopes never change,
 * so the service compiles them once per token and every request reuses the
 * result; `createGrant` also accepts raw scopes and compiles them itself.
 *
 * The layer is still checked here even though `normalizeScopes` made it:
 * records come back from stores, and a scope list that is not what
 * `normalizeScopes` returns must fail loudly, not widen or narrow in silence.
 * @module
 */
import { SvcAuthError, ValidationError, type IssueInput } from '../errors';
import { permissionIndex, PERMISSIONS } from '../vocabulary';
import { compileMatcherForValidNames, checkPattern, parseResource, LIMITS, type Scope, type ThingMatcher } from '../scopes';

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

const ENTRY_KEYS: ReadonlySet<string> = new Set(['resource', 'permissions', 'allowedMatches']);

/**
 * Compile one scope layer (a token's validated scopes, as `normalizeScopes`
 * returns them). An empty list is a layer that denies everything (A5). Throws
 * `ValidationError`, listing every problem, when an entry is not a valid
 * scope: unknown or `role:` permissions (expand roles first), org permissions
 * or `allowedMatches` outside a repo entry, a repeated (resource, permission)
 * pair, a pattern outside the safe glob subset, more than the limits of S6/S8.
 *
 * @example
 * ```ts
 * const layer = compileLayer([
 *   { resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] },
 *   { resource: 'acme', permissions: ['org:read'] },
 * ]);
 * authorize(createGrant({ roles, layers: [layer] }), 'acme/web', 'repo:read', 'Doc/a'); // ALLOW if roles allow
 * ```
 */
export function compileLayer(scopes: readonly Scope[]): CompiledLayer {
  const issues: IssueInput[] = [];
  let data: LayerData | null;
  try {
    data = buildLayer(scopes, issues);
  } catch (err) {
    if (err instanceof SvcAuthError) throw err;
    // A hostile input (a throwing getter or Proxy) must still end as a typed error.
    throw new ValidationError([{ path: '', message: 'scopes could not be read' }], { cause: err });
  }
  if (issues.length > 0 || data === null) throw new ValidationError(issues);
  return new CompiledLayer(INTERNAL, data);
}

function buildLayer(scopes: unknown, issues: IssueInput[]): LayerData | null {
  if (!Array.isArray(scopes)) {
    issues.push({ path: '', message: `scopes must be an array, got ${kindOf(scopes)}` });
    return null;
  }
  const n = scopes.length;
  if (n > LIMITS.maxEntries) {
    issues.push({ path: '', message: `at most ${LIMITS.maxEntries} scope entries, got ${n}` });
    return null;
  }
  let global: Slot[] | null = null;
  const orgs = new Map<string, Slot[]>();
  const repos = new Map<string, Slot[]>();
  for (let i = 0; i < n; i++) {
    const path = `[${i}]`;
    const entry: unknown = scopes[i];
    if (!isPlainObject(entry)) {
      issues.push({ path, message: `expected a scope object, got ${kindOf(entry)}` });
      continue;
    }
    for (const k of Object.keys(entry)) {
      if (!ENTRY_KEYS.has(k)) issues.push({ path: `${path}[${preview(k)}]`, message: 'unknown key' });
    }
    const rec = entry as Record<string, unknown>;
    const resource = rec['resource'];
    const permissions = rec['permissions'];
    const allowed = rec['allowedMatches'];

    let tier: Slot[] | null = null;
    let isRepo = false;
    if (resource === undefined) {
      global ??= emptyTier();
      tier = global;
    } else {
      const ref = parseResource(resource);
      if (ref === null) {
        issues.push({ path: `${path}.resource`, message: 'must be "<org>" or "<org>/<repo>" with names of letters, digits, ".", "_", "-"' });
      } else {
        isRepo = ref.repo !== undefined;
        const map = isRepo ? repos : orgs;
        tier = map.get(ref.key) ?? null;
        if (tier === null) {
          tier = emptyTier();
          map.set(ref.key, tier);
        }
      }
    }

    const slot = readPatterns(allowed, isRepo || tier === null, `${path}.allowedMatches`, issues);
    const bits = readPermissions(permissions, isRepo, `${path}.permissions`, issues);
    if (tier === null || slot === null) continue;
    for (const pi of bits) {
      if (tier[pi] !== NONE) {
        issues.push({ path: `${path}.permissions`, message: `${PERMISSIONS[pi]} is listed twice for this resource` });
      } else {
        tier[pi] = slot;
      }
    }
  }
  return { global, orgs, repos };
}

function readPermissions(value: unknown, isRepo: boolean, path: string, issues: IssueInput[]): number[] {
  if (!Array.isArray(value)) {
    issues.push({ path, message: `must be an array of permissions, got ${kindOf(value)}` });
    return [];
  }
  const n = value.length;
  if (n === 0 || n > LIMITS.maxPermissionsPerEntry) {
    issues.push({ path, message: `must list 1 to ${LIMITS.maxPermissionsPerEntry} permissions, got ${n}` });
    return [];
  }
  const out: number[] = [];
  for (let j = 0; j < n; j++) {
    const p: unknown = value[j];
    const pi = permissionIndex(p);
    if (pi < 0) {
      const hint = typeof p === 'string' && p.startsWith('role:') ? ' (expand roles with normalizeScopes first)' : '';
      issues.push({ path: `${path}[${j}]`, message: `unknown permission${hint}` });
    } else if (isRepo && pi >= 4) {
      issues.push({ path: `${path}[${j}]`, message: 'org permissions are not allowed on a repo entry' });
    } else if (out.includes(pi)) {
      issues.push({ path: `${path}[${j}]`, message: `${PERMISSIONS[pi]} is listed twice` });
    } else {
      out.push(pi);
    }
  }
  return out;
}

function readPatterns(value: unknown, isRepo: boolean, path: string, issues: IssueInput[]): Slot | null {
  if (value === undefined) return FREE;
  if (!isRepo) {
    // normalizeScopes strips these (S5); one that reaches here means the scopes were not normalized.
    issues.push({ path, message: 'allowedMatches is only allowed on repo entries' });
    return null;
  }
  if (!Array.isArray(value)) {
    issues.push({ path, message: `must be an array of glob patterns, got ${kindOf(value)}` });
    return null;
  }
  const n = value.length;
  if (n > LIMITS.maxPatterns) {
    issues.push({ path, message: `at most ${LIMITS.maxPatterns} patterns, got ${n}` });
    return null;
  }
  const patterns: string[] = [];
  let ok = true;
  for (let j = 0; j < n; j++) {
    const p: unknown = value[j];
    const why = checkPattern(p);
    if (why !== null) {
      issues.push({ path: `${path}[${j}]`, message: why });
      ok = false;
    } else {
      patterns.push(p as string);
    }
  }
  if (!ok) return null;
  // authorize checks the thing name once per decision, before any matcher runs.
  return Object.freeze({ match: compileMatcherForValidNames(patterns), empty: n === 0 });
}

function emptyTier(): Slot[] {
  return [NONE, NONE, NONE, NONE, NONE, NONE, NONE];
}

/** @internal a plain object (prototype Object.prototype or null), not an array, Map or class instance. */
export function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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
