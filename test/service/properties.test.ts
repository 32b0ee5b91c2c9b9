import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { AuthenticationError, ForbiddenError } from '../../src/errors';
import type { Principal, UserRoles } from '../../src/core/policy';
import type { ScopeEntry } from '../../src/core/scopes';
import { PERMISSIONS, ROLES } from '../../src/core/vocabulary';
import { testAuth } from '../support/auth';
import { dpopHeaders, newKey, type TestKey } from '../support/dpop';

/** The permissions taken on an `org/repo` resource. */
const REPO_PERMISSIONS = PERMISSIONS.filter((p) => p.startsWith('repo:'));

const ORGS = ['acme', 'beta'];
const REPOS = ['acme/w', 'acme/x', 'beta/y'];
const RESOURCES = [...ORGS, ...REPOS];
const THINGS = [undefined, 'Doc/a', 'Img/b/c'];

const role = fc.constantFrom(...ROLES);
const rolesArb: fc.Arbitrary<UserRoles> = fc.record({
  orgs: fc.dictionary(fc.constantFrom(...ORGS), role, { maxKeys: 2 }),
  repos: fc.dictionary(fc.constantFrom(...REPOS), role, { maxKeys: 3 }),
});

const entryArb: fc.Arbitrary<ScopeEntry> = fc.constantFrom<string | undefined>(undefined, ...RESOURCES).chain((resource) => {
  const isRepo = resource !== undefined && resource.includes('/');
  const perms = fc.subarray([...(isRepo ? REPO_PERMISSIONS : PERMISSIONS)], { minLength: 1 });
  const matches = isRepo ? fc.option(fc.constantFrom(['Doc/*'], ['Img/**'], [] as string[]), { nil: undefined }) : fc.constant(undefined);
  return fc.tuple(perms, matches).map(([permissions, allowedMatches]) => ({
    ...(resource === undefined ? {} : { resource }),
    permissions: [...permissions],
    ...(allowedMatches === undefined ? {} : { allowedMatches }),
  }));
});

// One entry per resource, so no (resource, permission) pair repeats (S2).
const scopesArb = fc.option(fc.uniqueArray(entryArb, { minLength: 1, maxLength: 4, selector: (e) => e.resource ?? '' }), {
  nil: undefined,
});

/** Node i is created by node `parent` (an earlier index) or, with -1, by the owner's session. */
const treeArb = fc
  .array(fc.tuple(fc.nat(), scopesArb), { minLength: 1, maxLength: 6 })
  .map((nodes) => nodes.map(([p, scopes], i) => ({ parent: i === 0 ? -1 : (p % (i + 1)) - 1, scopes })));

interface Built {
  principal: Principal;
  token: string;
  ancestors: number[];
}

async function buildTree(roles: UserRoles, tree: { parent: number; scopes: ScopeEntry[] | undefined }[]) {
  const s = await testAuth();
  s.roles.set('carol', roles);
  const session = await s.auth.authenticate(await s.auth.issueSession('carol'));
  const nodes: (Built | undefined)[] = [];
  for (const [i, node] of tree.entries()) {
    const parent = node.parent < 0 ? undefined : nodes[node.parent];
    if (node.parent >= 0 && parent === undefined) {
      nodes.push(undefined); // its parent was refused
      continue;
    }
    try {
      const by = parent?.principal ?? session;
      const input = { name: `t${i}`, ...(node.scopes === undefined ? {} : { scopes: node.scopes }) };
      const { token } = await s.auth.client(by).token.create(input);
      const ancestors = parent === undefined ? [] : [node.parent, ...parent.ancestors];
      nodes.push({ principal: await s.auth.authenticate(token), token, ancestors });
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err; // M4 may refuse; nothing else may fail
      nodes.push(undefined);
    }
  }
  return { s, session, nodes };
}

describe('token trees (fast-check)', () => {
  it('A5/M4: every decision allowed for a descendant is allowed for each ancestor and by the role alone', async () => {
    await fc.assert(
      fc.asyncProperty(rolesArb, treeArb, async (roles, tree) => {
        const { s, session, nodes } = await buildTree(roles, tree);
        for (const node of nodes) {
          if (node === undefined) continue;
          for (const resource of RESOURCES) {
            for (const permission of PERMISSIONS) {
              for (const thing of THINGS) {
                if (!s.auth.authorize(node.principal, resource, permission, thing).allowed) continue;
                expect(s.auth.authorize(session, resource, permission, thing)).toEqual({ allowed: true });
                for (const a of node.ancestors) {
                  expect(s.auth.authorize((nodes[a] as Built).principal, resource, permission, thing)).toEqual({ allowed: true });
                }
              }
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('T6: revoking any node makes its whole subtree fail authenticate with reason revoked, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(rolesArb, treeArb, fc.nat(), fc.boolean(), async (roles, tree, pick, byName) => {
        const { s, session, nodes } = await buildTree(roles, tree);
        const present = nodes.flatMap((n, i) => (n === undefined ? [] : [i]));
        const target = present[pick % present.length] as number;
        if (byName) await s.auth.client(session).token.revoke(`t${target}`);
        else await s.auth.revokeToken((nodes[target] as Built).principal.tokenId as string);
        for (const i of present) {
          const node = nodes[i] as Built;
          const inSubtree = i === target || node.ancestors.includes(target);
          if (inSubtree) {
            const err = await s.auth.authenticate(node.token).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(err).toBeInstanceOf(AuthenticationError);
            expect((err as AuthenticationError).reason).toBe('revoked');
          } else {
            await s.auth.authenticate(node.token);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});

/**
 * Key binding under the same trees: each node names one of three keys, or none.
 * The model: a node's key is the one it names, else its parent's (a child of a
 * bound token is bound; it can never be unbound). Every principal is taken
 * with a proof by its key, so the decisions invariant above holds for bound trees too.
 */
const bindTreeArb = fc
  .array(fc.tuple(fc.nat(), scopesArb, fc.integer({ min: -1, max: 2 })), { minLength: 1, maxLength: 5 })
  .map((nodes) => nodes.map(([p, scopes, key], i) => ({ parent: i === 0 ? -1 : (p % (i + 1)) - 1, scopes, key })));

const URL_ = 'https://api.test/repos';
let keys: Promise<TestKey[]> | undefined;
const threeKeys = (): Promise<TestKey[]> => (keys ??= Promise.all([newKey(), newKey('ES256'), newKey()]));

describe('key-bound token trees (fast-check)', () => {
  it("narrowing: a descendant of a bound token is bound (own key or its parent's), decisions still narrow, and a bound token alone is refused", async () => {
    const ks = await threeKeys();
    await fc.assert(
      fc.asyncProperty(rolesArb, bindTreeArb, async (roles, tree) => {
        const s = await testAuth();
        s.roles.set('carol', roles);
        const session = await s.auth.authenticate(await s.auth.issueSession('carol'));
        const nowSec = (): number => Math.floor(s.clock.now().getTime() / 1000);
        const take = async (token: string, key: TestKey | null): Promise<Principal> =>
          key === null
            ? s.auth.authenticate(token)
            : s.auth.authenticateRequest(new Request(URL_, { headers: await dpopHeaders(key, token, { url: URL_, iatSec: nowSec() }) }));
        const nodes: ({ principal: Principal; token: string; key: TestKey | null; ancestors: number[] } | undefined)[] = [];
        for (const [i, node] of tree.entries()) {
          const parent = node.parent < 0 ? undefined : nodes[node.parent];
          if (node.parent >= 0 && parent === undefined) {
            nodes.push(undefined);
            continue;
          }
          const named = node.key < 0 ? null : (ks[node.key] as TestKey);
          const input = {
            name: `t${i}`,
            ...(node.scopes === undefined ? {} : { scopes: node.scopes }),
            ...(named === null ? {} : { bindKey: named.publicJwk }),
          };
          try {
            const { token, info } = await s.auth.client(parent?.principal ?? session).token.create(input);
            const key = named ?? parent?.key ?? null;
            expect(info.boundKey).toBe(key?.thumbprint ?? null);
            nodes.push({
              principal: await take(token, key),
              token,
              key,
              ancestors: parent === undefined ? [] : [node.parent, ...parent.ancestors],
            });
          } catch (err) {
            if (!(err instanceof ForbiddenError)) throw err;
            nodes.push(undefined);
          }
        }
        for (const node of nodes) {
          if (node === undefined) continue;
          if (node.ancestors.some((a) => nodes[a]?.key != null)) expect(node.key).not.toBeNull();
          if (node.key !== null) {
            const alone = await s.auth.authenticate(node.token).catch((e: unknown) => e);
            expect((alone as AuthenticationError).reason).toBe('bound');
            const other = ks.find((k) => k !== node.key) as TestKey;
            const wrong = await take(node.token, other).catch((e: unknown) => e);
            expect((wrong as AuthenticationError).reason).toBe('dpop');
          }
          for (const resource of RESOURCES) {
            for (const permission of PERMISSIONS) {
              if (!s.auth.authorize(node.principal, resource, permission).allowed) continue;
              expect(s.auth.authorize(session, resource, permission).allowed).toBe(true);
              for (const a of node.ancestors)
                expect(s.auth.authorize(nodes[a]?.principal as Principal, resource, permission).allowed).toBe(true);
            }
          }
        }
      }),
      { numRuns: 30 },
    );
  });
});
