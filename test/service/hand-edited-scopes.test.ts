/**
 * Issue 18, item 9: the compiled layers and grants of a running process are
 * keyed by token id, but a record's scopes are only as fixed as its store keeps
 * them. A scope edited by hand in the store (PostgreSQL: `UPDATE … SET scopes`)
 * must decide the very next request, as in a fresh process. Here a store
 * wrapper plays the hand edit, in the two ways stores hand out records: the same
 * frozen scopes while a row is unchanged (the memory and PostgreSQL stores), or
 * new arrays on every read (the file store, many custom stores). The real
 * PostgreSQL case is in postgres-hand-edit.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/core/scopes';

import type { Auth } from '../../src/service';
import { MemoryTokenStore, type TokenRecord, type TokenStore } from '../../src/stores';
import { PERMISSIONS, type Permission } from '../../src/core/vocabulary';
import { testAuth, type TestAuth } from '../support/auth';

/** A scope entry that is both a `Scope` (as stored) and a `ScopeEntry` (as `create` takes it). */
type Entry = { resource?: string; permissions: Permission[]; allowedMatches?: string[] };

type Mode = 'shared' | 'fresh' | 'mutable';

/**
 * A memory store whose records can be edited "by hand". `shared` hands back one
 * deep-frozen scopes object per edit, `fresh` a new unfrozen copy per read,
 * `mutable` one unfrozen array that an edit changes in place.
 */
class HandEditedStore implements TokenStore {
  readonly inner = new MemoryTokenStore();
  readonly #edits = new Map<string, { scopes: Scope[] | null }>();
  constructor(readonly mode: Mode) {}

  edit(id: string, scopes: Scope[] | null): void {
    const held = this.#edits.get(id);
    if (this.mode === 'mutable' && held !== undefined && held.scopes !== null && scopes !== null) {
      held.scopes.splice(0, held.scopes.length, ...structuredClone(scopes));
      return;
    }
    const value = scopes === null ? null : this.mode === 'shared' ? deepFreeze(structuredClone(scopes)) : structuredClone(scopes);
    this.#edits.set(id, { scopes: value });
  }

  #view(chain: TokenRecord[] | null): TokenRecord[] | null {
    return (
      chain?.map((r) => {
        const e = this.#edits.get(r.id);
        if (e === undefined) return r;
        const scopes = this.mode === 'fresh' && e.scopes !== null ? structuredClone(e.scopes) : e.scopes;
        return Object.freeze({ ...r, scopes });
      }) ?? null
    );
  }

  insert = (r: TokenRecord, now: Date) => this.inner.insert(r, now);
  listByOwner = (owner: string) => this.inner.listByOwner(owner);
  revoke = (ids: readonly string[], at: Date) => this.inner.revoke(ids, at);
  readChain = async (id: string) => this.#view(await this.inner.readChain(id));
  // The synchronous path of the hot `authenticate` must see the edits too.
  readChainSync = (id: string) => this.#view(this.inner.readChainSync(id) ?? null);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const READ_WRITE: Entry[] = [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }];
const READ: Entry[] = [{ resource: 'acme/web', permissions: ['repo:read'] }];

async function world(
  mode: Mode,
  extra: Parameters<typeof testAuth>[0] = {},
): Promise<TestAuth & { store: HandEditedStore; session: string }> {
  const store = new HandEditedStore(mode);
  const s = await testAuth({ tokens: store, ...extra });
  return { ...s, store, session: await s.auth.issueSession('alice') };
}

async function decide(auth: Auth, token: string, permission: string, resource = 'acme/web', thing?: string) {
  return auth.authorize(await auth.authenticate(token), resource, permission, thing);
}

describe('scopes edited by hand in the store (issue 18, item 9)', () => {
  for (const mode of ['shared', 'fresh', 'mutable'] as const) {
    it(`${mode}: a scope narrowed by hand is denied on the next request of the running process, and widened back is allowed`, async () => {
      const w = await world(mode);
      const me = await w.auth.authenticate(w.session);
      const { token, info } = await w.auth.client(me).token.create({ name: 'ci', scopes: READ_WRITE });
      w.store.edit(info.id, READ_WRITE); // the store now hands out its own copy, as a row read back would be
      for (let i = 0; i < 3; i++) expect(await decide(w.auth, token, 'repo:write')).toEqual({ allowed: true });
      w.store.edit(info.id, READ);
      expect(await decide(w.auth, token, 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
      expect(await decide(w.auth, token, 'repo:read')).toEqual({ allowed: true });
      w.store.edit(info.id, READ_WRITE);
      expect(await decide(w.auth, token, 'repo:write')).toEqual({ allowed: true });
    });
  }

  it('an ancestor narrowed by hand narrows its descendants on their next request (every layer, A5)', async () => {
    const w = await world('shared');
    const me = await w.auth.authenticate(w.session);
    const parent = await w.auth.client(me).token.create({ name: 'parent', scopes: READ_WRITE });
    const child = await w.auth.client(await w.auth.authenticate(parent.token)).token.create({ name: 'child' });
    expect(await decide(w.auth, child.token, 'repo:write')).toEqual({ allowed: true });
    w.store.edit(parent.info.id, READ);
    expect(await decide(w.auth, child.token, 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('a scoped token edited to full access (scopes null) and back', async () => {
    const w = await world('fresh');
    const me = await w.auth.authenticate(w.session);
    const { token, info } = await w.auth.client(me).token.create({ name: 'ci', scopes: READ });
    expect(await decide(w.auth, token, 'repo:admin')).toEqual({ allowed: false, reason: 'scope' });
    w.store.edit(info.id, null);
    expect(await decide(w.auth, token, 'repo:admin')).toEqual({ allowed: true });
    w.store.edit(info.id, READ);
    expect(await decide(w.auth, token, 'repo:admin')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('property: under random hand edits and role changes, every decision equals that of a process that caches nothing', async () => {
    const pool: (Entry[] | null)[] = [
      null,
      READ,
      READ_WRITE,
      [{ resource: 'acme', permissions: ['repo:read', 'org:read'] }],
      [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }],
      [{ permissions: ['repo:read'] }],
      [],
    ];
    const probes: [string, string, string | undefined][] = [];
    for (const resource of ['acme/web', 'acme/api', 'acme']) {
      for (const p of PERMISSIONS) probes.push([resource, p, undefined]);
      probes.push([resource, 'repo:write', 'Doc/a'], [resource, 'repo:write', 'Img/b']);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Mode>('shared', 'fresh', 'mutable'),
        fc.array(
          fc.record({
            which: fc.constantFrom('parent', 'child'),
            scopes: fc.integer({ min: 0, max: pool.length - 1 }),
            role: fc.constantFrom('owner', 'editor', 'viewer', undefined),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (mode, steps) => {
          const w = await world(mode);
          // Caches off: every request compiles from what the store hands back, as a fresh process would.
          const fresh = await testAuth({
            tokens: w.store,
            members: { rolesOf: (u) => w.roles.get(u) ?? {} },
            cache: { layers: 0, grants: 0, signatures: 0 },
          });
          const me = await w.auth.authenticate(w.session);
          const parent = await w.auth.client(me).token.create({ name: 'parent', scopes: READ_WRITE });
          const child = await w.auth.client(await w.auth.authenticate(parent.token)).token.create({ name: 'child' });
          for (const step of steps) {
            const id = step.which === 'parent' ? parent.info.id : child.info.id;
            const scopes = pool[step.scopes] ?? null;
            w.store.edit(id, scopes);
            if (step.role !== undefined) w.roles.set('alice', { orgs: { acme: step.role } });
            for (const token of [parent.token, child.token]) {
              const cached = await w.auth.authenticate(token);
              const uncached = await fresh.auth.authenticate(token);
              for (const [resource, permission, thing] of probes) {
                expect(w.auth.authorize(cached, resource, permission, thing)).toEqual(
                  fresh.auth.authorize(uncached, resource, permission, thing),
                );
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
