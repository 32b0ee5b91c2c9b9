/** fast-check generators of valid scope entries, shared by the scopes tests. */
import fc from 'fast-check';
import type { ScopeEntry } from '../../../src/core/scopes';
import { PERMISSIONS, ROLES } from '../../../src/core/vocabulary';

/** The permissions taken on an `org/repo` resource. */
const REPO_PERMISSIONS = PERMISSIONS.filter((p) => p.startsWith('repo:'));

const org = fc.constantFrom('acme', 'Acme', 'beta', 'x.y', 'o-1');
const repo = fc.constantFrom('web', 'Web', 'api', 'r_2');
const resource = fc.oneof(
  fc.constant(undefined),
  org,
  fc.tuple(org, repo).map(([o, r]) => `${o}/${r}`),
);
const patterns = fc.uniqueArray(fc.constantFrom('Doc/*', 'Img/**', 'a/b', 'x?/*', '**', 'T/*.md'), { maxLength: 4 });
const role = fc.constantFrom(...ROLES).map((r) => `role:${r}`);

function entryFor(res: string | undefined): fc.Arbitrary<ScopeEntry> {
  const tier = res === undefined ? 'global' : res.includes('/') ? 'repo' : 'org';
  const plain = fc
    .subarray([...(tier === 'repo' ? REPO_PERMISSIONS : PERMISSIONS)], { minLength: 1 })
    .chain((ps) => fc.shuffledSubarray(ps, { minLength: ps.length }));
  const perms =
    tier === 'global'
      ? plain
      : fc.oneof(
          plain,
          role.map((r) => [r]),
        );
  const matches = fc.option(patterns, { nil: undefined });
  return fc.tuple(perms, matches).map(([permissions, allowedMatches]) => {
    const e: ScopeEntry = { permissions };
    if (res !== undefined) e.resource = res;
    if (allowedMatches !== undefined) e.allowedMatches = allowedMatches;
    return e;
  });
}

/** Lists of scope entries that normalizeScopes accepts: one entry per distinct resource, so no pair repeats. */
export function validScopeEntries(): fc.Arbitrary<ScopeEntry[]> {
  return fc
    .uniqueArray(resource, { minLength: 1, maxLength: 6, selector: (r) => (r === undefined ? '' : r.toLowerCase()) })
    .chain((resources) => fc.tuple(...resources.map((r) => entryFor(r))));
}
