/**
 * The membership conformance suite is itself tested: a correct store passes
 * every case, and each deliberately broken store fails at least one.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { MemoryMembershipStore, type Membership, type MembershipStore } from '../../src/stores';
import type { RoleName, UserRoles } from '../../src/core/vocabulary';
import { membershipCases } from '../../src/testing/conformance/members';

type Bug =
  | 'case-sensitive-resources'
  | 'set-keeps-first-role'
  | 'remove-always-true'
  | 'remove-all-of-user'
  | 'list-unsorted'
  | 'locale-sorted'
  | 'plain-object-maps'
  | 'accepts-any-role'
  | 'accepts-any-resource'
  | 'throws-synchronously'
  | 'users-case-insensitive'
  | 'users-by-prefix'
  | 'repos-as-orgs'
  | 'loses-concurrent-sets';

/** A simple correct store (the memory store's checks, rows in an array) with one bug switched on. */
class NaiveMembers implements MembershipStore {
  private rows: Membership[] = [];
  private readonly checker = new MemoryMembershipStore();
  constructor(private readonly bug?: Bug) {}

  private key(resource: string): string {
    return this.bug === 'case-sensitive-resources' ? resource : resource.toLowerCase();
  }
  private sameUser(a: string, b: string): boolean {
    if (this.bug === 'users-case-insensitive') return a.toLowerCase() === b.toLowerCase();
    if (this.bug === 'users-by-prefix') return a.startsWith(b) || b.startsWith(a);
    return a === b;
  }
  /** The real checks (ValidationError with the field's path), unless the bug skips them. */
  private async check(userId: string, resource: string, role: string): Promise<void> {
    const r = this.bug === 'accepts-any-role' ? 'viewer' : role;
    const res = this.bug === 'accepts-any-resource' ? 'acme' : resource;
    await this.checker.set(userId, res, r as RoleName);
    await this.checker.remove(userId, res);
  }

  rolesOf(userId: string): Promise<UserRoles> {
    if (typeof userId !== 'string') return Promise.reject(new ValidationError([{ path: 'userId', message: 'expected a string' }]));
    const plain = this.bug === 'plain-object-maps';
    const orgs: Record<string, RoleName> = plain ? {} : Object.create(null);
    const repos: Record<string, RoleName> = plain ? {} : Object.create(null);
    for (const r of this.rows)
      if (this.sameUser(r.user, userId)) (r.resource.includes('/') && this.bug !== 'repos-as-orgs' ? repos : orgs)[r.resource] = r.role;
    return Promise.resolve({ orgs, repos });
  }

  set(userId: string, resource: string, role: RoleName): Promise<void> {
    if (this.bug === 'throws-synchronously' && typeof role === 'string' && !['owner', 'admin', 'editor', 'viewer'].includes(role)) {
      throw new ValidationError([{ path: 'role', message: 'bad role' }]);
    }
    return (async () => {
      await this.check(userId, resource, role);
      const key = this.key(resource);
      const before = this.rows;
      if (this.bug === 'loses-concurrent-sets') await new Promise((r) => setTimeout(r, 1));
      const existing = before.find((r) => r.user === userId && r.resource === key);
      if (existing !== undefined && this.bug === 'set-keeps-first-role') return;
      this.rows = [...before.filter((r) => r !== existing), { user: userId, resource: key, role }];
    })();
  }

  async remove(userId: string, resource: string): Promise<boolean> {
    await this.check(userId, resource, 'viewer');
    const key = this.key(resource);
    const n = this.rows.length;
    this.rows = this.rows.filter((r) => !(r.user === userId && (this.bug === 'remove-all-of-user' || r.resource === key)));
    return this.bug === 'remove-always-true' || this.rows.length < n;
  }

  async list(): Promise<Membership[]> {
    const out = [...this.rows];
    if (this.bug === 'list-unsorted') return out;
    if (this.bug === 'locale-sorted') return out.sort((a, b) => a.user.localeCompare(b.user) || a.resource.localeCompare(b.resource));
    return out.sort((a, b) =>
      a.user < b.user ? -1 : a.user > b.user ? 1 : a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0,
    );
  }
}

async function failures(make: () => MembershipStore): Promise<string[]> {
  const failed: string[] = [];
  for (const c of membershipCases()) {
    try {
      await c.run(make());
    } catch {
      failed.push(c.name);
    }
  }
  return failed;
}

describe('membershipStoreConformance', () => {
  it('a correct store passes every case, and so does the memory store', async () => {
    expect(await failures(() => new NaiveMembers())).toEqual([]);
    expect(await failures(() => new MemoryMembershipStore())).toEqual([]);
  });

  const bugs: Bug[] = [
    'case-sensitive-resources',
    'set-keeps-first-role',
    'remove-always-true',
    'remove-all-of-user',
    'list-unsorted',
    'locale-sorted',
    'plain-object-maps',
    'accepts-any-role',
    'accepts-any-resource',
    'throws-synchronously',
    'users-case-insensitive',
    'users-by-prefix',
    'repos-as-orgs',
    'loses-concurrent-sets',
  ];
  for (const bug of bugs) {
    it(`catches a store with the bug: ${bug}`, async () => {
      expect((await failures(() => new NaiveMembers(bug))).length).toBeGreaterThan(0);
    });
  }

  it('case names are unique', () => {
    const names = membershipCases().map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
