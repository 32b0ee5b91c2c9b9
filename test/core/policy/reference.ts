/**
 * A slow, plainly written reference of rules A1-A5, read straight from
 * docs/rules.md (A1-A5) and docs/concepts.md, against which property tests compare
 * `authorize`. It shares no code with src/policy: lists and `includes`, no
 * bit masks, no tables, micromatch for glob meaning.
 */
import micromatch from 'micromatch';
import { ROLE_TABLE, type RoleName } from '../../../src/core/vocabulary';
import type { Scope } from '../../../src/core/scopes';
import type { OrgGate, UserRoles } from '../../../src/core/policy';

export type Outcome = 'allow' | 'invalid' | 'role' | 'policy' | 'scope' | 'thing';

const ALL = ['repo:read', 'repo:write', 'repo:configure', 'repo:admin', 'org:read', 'org:configure', 'org:admin'];
const RESOURCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$/;

function validThing(thing: unknown): boolean {
  if (typeof thing !== 'string' || thing.length > 1024) return false;
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(thing)) return false;
  const parts = thing.split('/');
  if (parts.length < 2) return false;
  return parts.every((s) => s !== '' && s !== '.' && s !== '..');
}

function roleIn(map: Record<string, RoleName> | undefined, key: string): RoleName | undefined {
  if (map === undefined) return undefined;
  for (const [k, v] of Object.entries(map)) if (k.toLowerCase() === key) return v;
  return undefined;
}

/** Does this layer reach the resource only through its global tier (entries without a resource)? */
function viaGlobal(layer: readonly Scope[], key: string, org: string, isRepo: boolean): boolean {
  const named = layer.some((e) => e.resource?.toLowerCase() === org || (isRepo && e.resource?.toLowerCase() === key));
  return !named && layer.some((e) => e.resource === undefined);
}

/** G2: the gate of the org, keys compared case-insensitively. */
function gateOf(gates: Record<string, OrgGate> | undefined, org: string): OrgGate | undefined {
  if (gates === undefined) return undefined;
  for (const [k, v] of Object.entries(gates)) if (k.toLowerCase() === org) return v;
  return undefined;
}

/** What one layer says (A4). */
function layerOutcome(
  layer: readonly Scope[],
  key: string,
  org: string,
  isRepo: boolean,
  permission: string,
  thing: string | undefined,
): Outcome {
  let tier = isRepo ? layer.filter((e) => e.resource?.toLowerCase() === key) : [];
  if (tier.length === 0) tier = layer.filter((e) => e.resource?.toLowerCase() === org);
  if (tier.length === 0) tier = layer.filter((e) => e.resource === undefined);
  if (tier.length === 0) return 'scope';
  const listing = tier.filter((e) => e.permissions.includes(permission as never));
  if (listing.length === 0) return 'scope';
  for (const e of listing) {
    if (e.allowedMatches === undefined) return 'allow';
    if (thing === undefined && e.allowedMatches.length > 0) return 'allow';
    if (thing !== undefined && e.allowedMatches.some((p) => micromatch.isMatch(thing, p, { dot: true }))) return 'allow';
  }
  return 'thing';
}

/** The decision of A1-A5 for roles, scope layers (own first) and one request. */
export function referenceAuthorize(
  roles: UserRoles,
  layers: readonly (readonly Scope[])[],
  resource: unknown,
  permission: unknown,
  thing?: unknown,
  gates?: Record<string, OrgGate>,
): Outcome {
  // A1/A2: malformed input first.
  if (typeof permission !== 'string' || !ALL.includes(permission)) return 'invalid';
  if (typeof resource !== 'string' || !RESOURCE.test(resource)) return 'invalid';
  const isRepoPermission = permission.startsWith('repo:');
  const isRepo = resource.includes('/');
  if (isRepoPermission !== isRepo) return 'invalid';
  if (thing !== undefined && (!isRepoPermission || !validThing(thing))) return 'invalid';

  // A3: the role cap.
  const key = resource.toLowerCase();
  const org = key.split('/')[0] as string;
  const orgRole = roleIn(roles.orgs, org);
  let held: string[] = [];
  if (isRepo) {
    const repoRole = roleIn(roles.repos, key);
    if (orgRole) held = held.concat(ROLE_TABLE[orgRole].repo);
    if (repoRole) held = held.concat(ROLE_TABLE[repoRole].repo);
  } else if (orgRole) {
    held = [...ROLE_TABLE[orgRole].org];
  }
  if (!held.includes(permission)) return 'role';

  // G2: an org's gate, after the role and before the scopes.
  const gate = gateOf(gates, org);
  if (gate !== undefined) {
    if ('blocked' in gate) return 'policy';
    if (layers.length === 0 || layers.some((l) => viaGlobal(l, key, org, isRepo))) return 'policy';
  }

  // A5: every layer must allow; a missing permission is reported before a thing restriction.
  const outcomes = layers.map((l) => layerOutcome(l, key, org, isRepo, permission, thing as string | undefined));
  if (outcomes.includes('scope')) return 'scope';
  if (outcomes.includes('thing')) return 'thing';
  return 'allow';
}
