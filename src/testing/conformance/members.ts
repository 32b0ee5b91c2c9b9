/**
 * The `MembershipStore` conformance suite: what every membership store must do
 * for `createAuth({ members })` and `svc member` to be right (one role per user
 * and resource, resources kept lowercase, roles never leaking between users,
 * bad input refused before anything is stored), as data, registered with one
 * call. Users are fresh per case, so a shared database table works without
 * truncation; `list` is checked on this case's own users only.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Membership, MembershipStore } from '../../stores';
import { registerSuite } from './suite';

/**
 * Options of {@link membershipStoreConformance}.
 *
 * @example
 * ```ts
 * const options: MembershipConformanceOptions<PostgresMembershipStore> = { twin: () => new PostgresMembershipStore({ pool }) };
 * ```
 */
export interface MembershipConformanceOptions<S extends MembershipStore = MembershipStore> {
  /** Called after each test with the store the factory made. */
  cleanup?: (store: S) => Promise<void> | void;
  /** A second store over the same memberships (another pool, another process's view): the cases across servers use it. */
  twin?: (store: S) => MembershipStore | Promise<MembershipStore>;
}

/**
 * One membership conformance case.
 *
 * @example
 * ```ts
 * for (const c of membershipCases()) await c.run(new MemoryMembershipStore());
 * ```
 */
export interface MembershipCase {
  readonly name: string;
  readonly run: (store: MembershipStore, twin?: MembershipStore) => Promise<void>;
}

type Run = (store: MembershipStore, twin: MembershipStore | undefined) => Promise<void>;

/** The validation failure's first path, or `undefined` when `p` did not reject with issues. */
async function issuePath(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    const issues = (err as { issues?: readonly { pathText?: string }[] }).issues;
    return issues?.[0]?.pathText ?? 'no path';
  }
  return undefined;
}

const mine = (rows: readonly Membership[], users: ReadonlySet<string>): Membership[] => rows.filter((r) => users.has(r.user));

/**
 * @internal The cases, as data, so that the suite itself is tested against broken stores.
 *
 * @example
 * ```ts
 * membershipCases().map((c) => c.name);
 * ```
 */
export function membershipCases(): MembershipCase[] {
  const cases: MembershipCase[] = [];
  const add = (name: string, run: Run): void => {
    cases.push({ name, run: (s, twin) => run(s, twin) });
  };
  const user = (prefix: string, s: string): string => `${prefix}-${s}`;

  add('members: an org role and a repo role come back apart; an unknown user has none', async (store) => {
    const p = randomUUID();
    await store.set(user(p, 'alice'), 'acme', 'editor');
    await store.set(user(p, 'alice'), 'acme/secrets', 'viewer');
    const roles = await store.rolesOf(user(p, 'alice'));
    expect({ ...roles.orgs }).toEqual({ acme: 'editor' });
    expect({ ...roles.repos }).toEqual({ 'acme/secrets': 'viewer' });
    const none = await store.rolesOf(user(p, 'nobody'));
    expect({ ...none.orgs, ...none.repos }).toEqual({});
  });

  add('members: set replaces the role held on that resource (one role per user and resource)', async (store) => {
    const p = randomUUID();
    const u = user(p, 'alice');
    await store.set(u, 'acme', 'owner');
    await store.set(u, 'acme', 'viewer');
    expect({ ...(await store.rolesOf(u)).orgs }).toEqual({ acme: 'viewer' });
    expect(mine(await store.list(), new Set([u]))).toEqual([{ user: u, resource: 'acme', role: 'viewer' }]);
  });

  add('members: resources are compared without case and kept lowercase (S7); user ids keep their case', async (store) => {
    const p = randomUUID();
    const u = user(p, 'alice');
    await store.set(u, 'Acme/Web', 'editor');
    await store.set(u, 'ACME/web', 'admin');
    expect({ ...(await store.rolesOf(u)).repos }).toEqual({ 'acme/web': 'admin' });
    expect({ ...(await store.rolesOf(user(p, 'ALICE'))).repos }).toEqual({});
    expect(await store.remove(u, 'acme/WEB')).toBe(true);
    expect({ ...(await store.rolesOf(u)).repos }).toEqual({});
  });

  add('members: remove answers whether there was a role, and removes only that one', async (store) => {
    const p = randomUUID();
    const u = user(p, 'alice');
    await store.set(u, 'acme', 'editor');
    await store.set(u, 'beta', 'viewer');
    expect(await store.remove(u, 'acme')).toBe(true);
    expect(await store.remove(u, 'acme')).toBe(false);
    expect(await store.remove(user(p, 'nobody'), 'acme')).toBe(false);
    expect({ ...(await store.rolesOf(u)).orgs }).toEqual({ beta: 'viewer' });
  });

  add("members: one user's roles never show in another's (ids that differ by case, prefix or suffix)", async (store) => {
    const p = randomUUID();
    await store.set(user(p, 'alice'), 'acme', 'owner');
    for (const other of [user(p, 'Alice'), user(p, 'alic'), user(p, 'alice2'), `${user(p, 'alice')}/acme`]) {
      const roles = await store.rolesOf(other);
      expect({ ...roles.orgs, ...roles.repos }).toEqual({});
    }
  });

  add('members: list is sorted by user, then resource, in code-unit order (not locale order)', async (store) => {
    const p = randomUUID();
    const [a, b, B] = [user(p, 'a'), user(p, 'b'), user(p, 'B')];
    for (const [u, r] of [
      [b, 'acme/web'],
      [a, 'acme/web'],
      [B, 'zeta'],
      [a, 'acme-x'],
      [a, 'acme'],
      [a, 'Zulu'],
    ] as const)
      await store.set(u, r, 'viewer');
    const got = mine(await store.list(), new Set([a, b, B])).map((m) => `${m.user.slice(p.length + 1)} ${m.resource}`);
    expect(got).toEqual(['B zeta', 'a acme', 'a acme-x', 'a acme/web', 'a zulu', 'b acme/web']);
  });

  add('members: bad input rejects with ValidationError naming the field, and stores nothing', async (store) => {
    const p = randomUUID();
    const u = user(p, 'alice');
    expect(await issuePath(store.set('', 'acme', 'viewer'))).toBe('userId');
    expect(await issuePath(store.set('a\u0000b', 'acme', 'viewer'))).toBe('userId');
    expect(await issuePath(store.set(u, 'acme/web/x', 'viewer'))).toBe('resource');
    expect(await issuePath(store.set(u, "acme'; --", 'viewer'))).toBe('resource');
    expect(await issuePath(store.set(u, 'acme', 'root' as never))).toBe('role');
    expect(await issuePath(store.remove(u, '../acme'))).toBe('resource');
    expect(await issuePath(store.rolesOf(42 as never))).toBe('userId');
    expect(mine(await store.list(), new Set([u]))).toEqual([]);
  });

  add('members: names like __proto__ and constructor are plain keys, never inherited roles', async (store) => {
    const p = randomUUID();
    await store.set('__proto__', 'constructor', 'viewer');
    try {
      expect((await store.rolesOf('__proto__')).orgs?.['constructor']).toBe('viewer');
      const other = await store.rolesOf(user(p, 'bob'));
      // What the policy core looks up: an org the user is not in finds nothing, even `constructor`.
      for (const key of ['constructor', 'toString', 'hasOwnProperty']) {
        expect(other.orgs?.[key]).toBeUndefined();
        expect(other.repos?.[key]).toBeUndefined();
      }
    } finally {
      await store.remove('__proto__', 'constructor');
    }
  });

  add('members: concurrent sets lose nothing (distinct resources) and leave one role (the same resource)', async (store) => {
    const p = randomUUID();
    const u = user(p, 'alice');
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.set(u, `org${i}`, 'viewer')));
    await Promise.all((['owner', 'admin', 'editor', 'viewer'] as const).map((role) => store.set(u, 'acme', role)));
    const rows = mine(await store.list(), new Set([u]));
    expect(rows.map((r) => r.resource)).toEqual(['acme', ...Array.from({ length: 8 }, (_, i) => `org${i}`)]);
    expect(Object.keys((await store.rolesOf(u)).orgs ?? {})).toHaveLength(9);
  });

  add('members (twin): a change on one server is read by the other at once', async (store, twin) => {
    if (twin === undefined) return;
    const p = randomUUID();
    const u = user(p, 'alice');
    await store.set(u, 'acme', 'editor');
    expect({ ...(await twin.rolesOf(u)).orgs }).toEqual({ acme: 'editor' });
    expect(await twin.remove(u, 'acme')).toBe(true);
    expect({ ...(await store.rolesOf(u)).orgs }).toEqual({});
  });
  return cases;
}

/**
 * Register the conformance tests for a {@link MembershipStore} implementation
 * in the current vitest file, as {@link tokenStoreConformance} does for token
 * stores. `factory` is called before each test; `cleanup`, if given, after each.
 *
 * @example
 * ```ts
 * import { membershipStoreConformance } from 'svc-auth/testing';
 * import { PostgresMembershipStore } from 'svc-auth/postgres';
 * membershipStoreConformance('PostgresMembershipStore', () => new PostgresMembershipStore({ pool }));
 * ```
 */
export function membershipStoreConformance<S extends MembershipStore>(
  name: string,
  factory: () => S | Promise<S>,
  options: MembershipConformanceOptions<S> = {},
): void {
  registerSuite<S, MembershipStore>(`MembershipStore conformance: ${name}`, {
    cases: membershipCases(),
    factory,
    cleanup: options.cleanup,
    twin: options.twin,
  });
}
