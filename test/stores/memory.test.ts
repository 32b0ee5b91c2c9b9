import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../src/errors';
import { MemoryMembershipStore, MemoryTokenStore, type TokenRecord } from '../../src/stores';
import { tokenStoreConformance } from '../../src/testing';
import { LATER, NOW } from '../support/clock';
import { rejection } from '../support/errors';
import { record } from '../support/record';

tokenStoreConformance('MemoryTokenStore', () => new MemoryTokenStore());

describe('MemoryTokenStore', () => {
  it('records come back as frozen copies: mutating one changes nothing stored', async () => {
    const store = new MemoryTokenStore();
    await store.insert(record({ id: 't1', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] }), NOW);
    const [got] = (await store.readChain('t1')) ?? [];
    expect(Object.isFrozen(got)).toBe(true);
    expect(Object.isFrozen(got?.scopes)).toBe(true);
    expect(Object.isFrozen(got?.scopes?.[0]?.permissions)).toBe(true);
    expect(() => {
      (got as { name: string }).name = 'evil';
    }).toThrow(TypeError);
    got?.expiresAt.setTime(0);
    const [again] = (await store.readChain('t1')) ?? [];
    expect(again?.name).toBe('ci');
    expect(again?.expiresAt.getTime()).toBe(LATER.getTime());
  });

  it('the inserted object is copied: changing it afterwards changes nothing stored', async () => {
    const store = new MemoryTokenStore();
    const scopes = [{ resource: 'acme/web', permissions: ['repo:read' as const] }];
    const input = { ...record({ id: 't1' }), scopes, expiresAt: new Date(LATER) };
    await store.insert(input, NOW);
    scopes[0]!.permissions.push('repo:admin' as never);
    input.expiresAt.setTime(0);
    const [got] = (await store.readChain('t1')) ?? [];
    expect(got?.scopes?.[0]?.permissions).toEqual(['repo:read']);
    expect(got?.expiresAt.getTime()).toBe(LATER.getTime());
  });

  it('a duplicate id rejects with ConflictError', async () => {
    const store = new MemoryTokenStore();
    await store.insert(record({ id: 'dup' }), NOW);
    expect(await rejection(store.insert(record({ id: 'dup', name: 'other' }), NOW))).toBeInstanceOf(ConflictError);
  });

  it('bad input rejects with ValidationError naming the field, never a TypeError', async () => {
    const store = new MemoryTokenStore();
    const cases: [unknown, unknown, string][] = [
      [null, NOW, 'record'],
      [{ ...record({ id: 'x' }), expiresAt: 'tomorrow' }, NOW, 'record.expiresAt'],
      [{ ...record({ id: 'x' }), expiresAt: new Date('nope') }, NOW, 'record.expiresAt'],
      [{ ...record({ id: 'x' }), kind: 'oauth' }, NOW, 'record.kind'],
      [{ ...record({ id: '' }) }, NOW, 'record.id'],
      [{ ...record({ id: 'x' }), scopes: [{ permissions: ['repo:*'] }] }, NOW, 'record.scopes[0].permissions[0]'],
      [{ ...record({ id: 'x' }), scopes: {} }, NOW, 'record.scopes'],
      [record({ id: 'x' }), 'now', 'now'],
    ];
    for (const [record, now, path] of cases) {
      const err = await rejection(store.insert(record as TokenRecord, now as Date));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues.map((i) => i.pathText)).toContain(path);
    }
    expect(await rejection(store.revoke('t1' as never, NOW))).toBeInstanceOf(ValidationError);
    expect(await rejection(store.revoke(['t1'], new Date(Number.NaN)))).toBeInstanceOf(ValidationError);
    expect(await rejection(store.readChain(42 as never))).toBeInstanceOf(ValidationError);
    expect(await rejection(store.listByOwner(undefined as never))).toBeInstanceOf(ValidationError);
    expect(store.size).toBe(0);
  });

  it('hostile ids such as __proto__ and constructor are plain keys', async () => {
    const store = new MemoryTokenStore();
    expect(await store.readChain('__proto__')).toBeNull();
    expect(await store.readChain('constructor')).toBeNull();
    expect(await store.listByOwner('__proto__')).toEqual([]);
    await store.insert(record({ id: '__proto__', ownerId: 'constructor', name: '__proto__' }), NOW);
    expect(await store.insert(record({ id: 'b', ownerId: 'constructor', name: '__proto__' }), NOW)).toBe('name_taken');
    expect((await store.readChain('__proto__'))?.[0]?.ownerId).toBe('constructor');
    expect(await store.revoke(['__proto__', 'toString'], NOW)).toEqual(['__proto__']);
  });

  it('T6 property: after revoking any node, every record with a revoked ancestor is revoked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: 1, maxLength: 25 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (parents, targets) => {
          const store = new MemoryTokenStore();
          // Node i's parent is some earlier node (or none), so the ids form a forest.
          for (let i = 0; i < parents.length; i++) {
            const p = parents[i]! % (i + 1);
            const parentId = p === i ? null : `n${p}`;
            expect(await store.insert(record({ id: `n${i}`, name: `n${i}`, parentId }), NOW)).toBe('ok');
          }
          const ids = targets.map((t) => `n${t % parents.length}`);
          const newly = await store.revoke(ids, LATER);
          expect(new Set(newly).size).toBe(newly.length);
          for (let i = 0; i < parents.length; i++) {
            const chain = (await store.readChain(`n${i}`)) ?? [];
            const hit = chain.some((r) => ids.includes(r.id));
            expect(chain[0]?.revokedAt !== null).toBe(hit);
            expect(newly.includes(`n${i}`)).toBe(hit);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('MemoryMembershipStore', () => {
  it('one user-id rule: a member id a session would refuse (a space, an invisible character, 257 chars) is refused here too', async () => {
    const m = new MemoryMembershipStore();
    for (const bad of ['a b', 'al\u200bice', 'x'.repeat(257), '']) {
      const err = await rejection(m.set(bad, 'acme', 'editor'));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]?.pathText).toBe('userId');
    }
    await m.set('x'.repeat(256), 'acme', 'viewer');
    expect(await m.rolesOf('x'.repeat(256))).toEqual({ orgs: { acme: 'viewer' }, repos: {} });
  });

  it('stores roles per org and repo, lowercase, and answers rolesOf', async () => {
    const m = new MemoryMembershipStore();
    await m.set('alice', 'Acme', 'editor');
    await m.set('alice', 'ACME/Secrets', 'viewer');
    await m.set('bob', 'acme/web', 'owner');
    expect(await m.rolesOf('alice')).toEqual({ orgs: { acme: 'editor' }, repos: { 'acme/secrets': 'viewer' } });
    expect(await m.rolesOf('carol')).toEqual({ orgs: {}, repos: {} });
    await m.set('alice', 'acme', 'admin');
    expect((await m.rolesOf('alice')).orgs).toEqual({ acme: 'admin' });
  });

  it('list is sorted by user, then resource; remove reports whether a role was there', async () => {
    const m = new MemoryMembershipStore();
    await m.set('bob', 'zeta', 'viewer');
    await m.set('alice', 'acme/web', 'editor');
    await m.set('alice', 'acme', 'owner');
    expect(await m.list()).toEqual([
      { user: 'alice', resource: 'acme', role: 'owner' },
      { user: 'alice', resource: 'acme/web', role: 'editor' },
      { user: 'bob', resource: 'zeta', role: 'viewer' },
    ]);
    expect(await m.remove('alice', 'ACME')).toBe(true);
    expect(await m.remove('alice', 'acme')).toBe(false);
    expect(await m.remove('nobody', 'acme')).toBe(false);
    expect((await m.list()).map((r) => r.resource)).toEqual(['acme/web', 'zeta']);
  });

  it('S7: invalid user, resource or role rejects with ValidationError at that path', async () => {
    const m = new MemoryMembershipStore();
    const cases: [unknown, unknown, unknown, string][] = [
      ['', 'acme', 'viewer', 'userId'],
      ['a\u001b[31m', 'acme', 'viewer', 'userId'],
      [42, 'acme', 'viewer', 'userId'],
      ['alice', 'acme/', 'viewer', 'resource'],
      ['alice', 'a/b/c', 'viewer', 'resource'],
      ['alice', '-acme', 'viewer', 'resource'],
      ['alice', '', 'viewer', 'resource'],
      ['alice', 'acme', 'role:viewer', 'role'],
      ['alice', 'acme', 'superuser', 'role'],
    ];
    for (const [user, resource, role, path] of cases) {
      const err = await rejection(m.set(user as string, resource as string, role as never));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]?.pathText).toBe(path);
    }
    expect(await rejection(m.remove('alice', '../etc'))).toBeInstanceOf(ValidationError);
    expect(await rejection(m.rolesOf(''))).toBeInstanceOf(ValidationError);
    expect(await m.list()).toEqual([]);
  });

  it('S4 hostile keys: __proto__ as a resource is refused; __proto__ and constructor as user ids or org names stay plain data', async () => {
    const m = new MemoryMembershipStore();
    expect(await rejection(m.set('alice', '__proto__', 'owner'))).toBeInstanceOf(ValidationError);
    await m.set('__proto__', 'constructor', 'owner');
    await m.set('constructor', 'acme', 'viewer');
    const roles = await m.rolesOf('__proto__');
    expect(roles.orgs?.['constructor']).toBe('owner');
    expect(Object.getPrototypeOf(roles.orgs)).toBeNull();
    // An org the user is not in finds nothing, even one named like an Object.prototype member.
    expect((await m.rolesOf('constructor')).orgs?.['constructor']).toBeUndefined();
    expect((await m.rolesOf('alice')).orgs?.['toString']).toBeUndefined();
    expect(({} as Record<string, unknown>)['owner']).toBeUndefined();
    expect(await m.list()).toEqual([
      { user: '__proto__', resource: 'constructor', role: 'owner' },
      { user: 'constructor', resource: 'acme', role: 'viewer' },
    ]);
  });
});
