import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import type { InsertResult, OrgAccessChange, OrgPolicyRecord, OrgPolicySet, TokenRecord, TokenStore, TokenUse } from '../../src/stores';
import { conformanceCases } from '../../src/testing/conformance';

/** Ways a store can get the contract wrong; the suite must catch each one. */
type Bug =
  | 'no-name-check'
  | 'expired-name-still-taken'
  | 'components-take-names'
  | 'no-parent-check'
  | 'expired-parent-ok'
  | 'duplicate-overwrites'
  | 'chain-farthest-first'
  | 'list-newest-first'
  | 'no-cascade'
  | 'overwrites-revoked-at'
  | 'reports-all-revoked'
  | 'await-between-check-and-write'
  | 'loses-scopes'
  | 'shifts-dates'
  | 'loses-allowed-ips'
  | 'keeps-every-address'
  | 'address-moves-back'
  | 'marks-twice'
  | 'marks-components'
  | 'longer-after-shorter'
  | 'ignores-limit'
  | 'sessions-take-names'
  | 'refuses-sessions'
  | 'sessions-become-pats'
  | 'purge-orphans-children'
  | 'purge-removes-pats'
  | 'purge-before-not-at-cutoff'
  | 'purge-ignores-revoked'
  | 'purge-ignores-limit'
  | 'purge-takes-pat-subtrees'
  | 'purge-counts-sessions-only'
  | 'purge-throws-synchronously';

/** A deliberately simple, correct store (O(n) scans) with optional bugs switched on. */
class NaiveStore implements TokenStore {
  protected rows: TokenRecord[] = [];
  constructor(private readonly bug?: Bug) {}

  async insert(record: TokenRecord, now: Date): Promise<InsertResult> {
    const b = this.bug;
    const active = (r: TokenRecord) => r.revokedAt === null && (b === 'expired-name-still-taken' || r.expiresAt > now);
    if (this.rows.some((r) => r.id === record.id)) {
      if (b !== 'duplicate-overwrites') throw new Error('duplicate id');
      this.rows = this.rows.filter((r) => r.id !== record.id);
    }
    if (record.parentId !== null && b !== 'no-parent-check') {
      const p = this.rows.find((r) => r.id === record.parentId);
      const ok = p !== undefined && p.revokedAt === null && (b === 'expired-parent-ok' || p.expiresAt > now);
      if (!ok) return 'parent_inactive';
    }
    // A store written when only PATs and component tokens had records.
    if (record.kind === 'session' && b === 'refuses-sessions') throw new Error("expected 'pat' or 'component'");
    const namesCount = (r: TokenRecord) =>
      r.kind === 'pat' ||
      (b === 'components-take-names' && r.kind === 'component') ||
      (b === 'sessions-take-names' && r.kind === 'session');
    if (namesCount(record) && b !== 'no-name-check') {
      const clash = this.rows.some((r) => namesCount(r) && r.ownerId === record.ownerId && r.name === record.name && active(r));
      if (clash) return 'name_taken';
    }
    if (b === 'await-between-check-and-write') await Promise.resolve();
    let stored = { ...record };
    if (b === 'loses-scopes') stored = { ...stored, scopes: null };
    if (b === 'shifts-dates') stored = { ...stored, expiresAt: new Date(record.expiresAt.getTime() + 1000) };
    if (b === 'loses-allowed-ips') stored = { ...stored, allowedIps: null };
    if (b === 'sessions-become-pats' && stored.kind === 'session') stored = { ...stored, kind: 'pat' };
    this.rows.push(stored);
    return 'ok';
  }

  async readChain(id: string): Promise<TokenRecord[] | null> {
    let r = this.rows.find((x) => x.id === id);
    if (!r) return null;
    const chain: TokenRecord[] = [];
    while (r) {
      chain.push(r);
      const parentId: string | null = r.parentId;
      r = parentId === null ? undefined : this.rows.find((x) => x.id === parentId);
    }
    return this.bug === 'chain-farthest-first' ? chain.reverse() : chain;
  }

  async listByOwner(ownerId: string): Promise<TokenRecord[]> {
    const list = this.rows.filter((r) => r.ownerId === ownerId);
    return this.bug === 'list-newest-first' ? list.reverse() : list;
  }

  async recordUse(uses: readonly TokenUse[], at: Date): Promise<void> {
    for (const u of uses) {
      const i = this.rows.findIndex((r) => r.id === u.id);
      const r = this.rows[i];
      if (!r) continue;
      const lastUsedAt = r.lastUsedAt && r.lastUsedAt >= at ? r.lastUsedAt : at;
      let usedFrom = [...(r.usedFrom ?? [])];
      const same = usedFrom.find((x) => x.address === u.address);
      if (u.address !== null && (this.bug === 'address-moves-back' || same === undefined || same.at < at)) {
        usedFrom = [...usedFrom.filter((x) => x.address !== u.address), { address: u.address, at, userAgent: u.userAgent }];
        usedFrom.sort((x, y) => y.at.getTime() - x.at.getTime() || (x.address < y.address ? -1 : 1));
        if (this.bug !== 'keeps-every-address') usedFrom = usedFrom.slice(0, 5);
      }
      this.rows[i] = { ...r, lastUsedAt, usedFrom };
    }
  }

  async markExpiring(withinSec: number, now: Date, limit: number): Promise<TokenRecord[]> {
    const b = this.bug;
    const due = this.rows
      .filter(
        (r) =>
          (r.kind === 'pat' || b === 'marks-components') &&
          r.revokedAt === null &&
          r.expiresAt > now &&
          r.expiresAt.getTime() <= now.getTime() + withinSec * 1000 &&
          (b === 'marks-twice' || !(r.expiryWarnings ?? []).some((w) => (b === 'longer-after-shorter' ? w === withinSec : w <= withinSec))),
      )
      .sort((x, y) => x.expiresAt.getTime() - y.expiresAt.getTime() || (x.id < y.id ? -1 : 1))
      .slice(0, b === 'ignores-limit' ? undefined : limit);
    const out: TokenRecord[] = [];
    for (const r of due) {
      const marked = { ...r, expiryWarnings: [...(r.expiryWarnings ?? []), withinSec] };
      this.rows[this.rows.indexOf(r)] = marked;
      out.push(marked);
    }
    return out;
  }

  purgeSessions(cutoff: Date, limit: number): Promise<number> {
    const b = this.bug;
    const bad = !(cutoff instanceof Date) || Number.isNaN(cutoff.getTime()) || !Number.isInteger(limit) || limit < 1;
    if (bad && b === 'purge-throws-synchronously') throw new ValidationError([{ path: 'limit', message: 'bad' }]);
    if (bad) return Promise.reject(new ValidationError([{ path: 'limit', message: 'bad' }]));
    const ended = (r: TokenRecord): boolean =>
      ((r.kind === 'session' || (b === 'purge-removes-pats' && r.kind === 'pat')) &&
        (b === 'purge-before-not-at-cutoff' ? r.expiresAt < cutoff : r.expiresAt <= cutoff)) ||
      (r.kind === 'session' && b !== 'purge-ignores-revoked' && r.revokedAt !== null && r.revokedAt <= cutoff);
    const subtree = (id: string): TokenRecord[] => {
      const self = this.rows.filter((r) => r.id === id);
      if (b === 'purge-orphans-children') return self;
      return [...self, ...this.rows.filter((r) => r.parentId === id).flatMap((r) => subtree(r.id))];
    };
    const doomed = new Set<string>();
    let picked = 0;
    for (const r of this.rows) {
      if ((picked >= limit && b !== 'purge-ignores-limit') || doomed.has(r.id) || !ended(r)) continue;
      const sub = subtree(r.id);
      if (b !== 'purge-takes-pat-subtrees' && b !== 'purge-removes-pats' && sub.some((x) => x.kind !== 'session')) continue;
      for (const x of sub) doomed.add(x.id);
      picked++;
    }
    this.rows = this.rows.filter((r) => !doomed.has(r.id));
    return Promise.resolve(b === 'purge-counts-sessions-only' ? picked : doomed.size);
  }

  async revoke(ids: readonly string[], at: Date): Promise<string[]> {
    const todo = [...ids];
    const out: string[] = [];
    while (todo.length > 0) {
      const id = todo.pop() as string;
      const i = this.rows.findIndex((r) => r.id === id);
      const r = this.rows[i];
      if (!r) continue;
      if (r.revokedAt === null || this.bug === 'overwrites-revoked-at' || this.bug === 'reports-all-revoked') {
        if (r.revokedAt === null || this.bug === 'overwrites-revoked-at') this.rows[i] = { ...r, revokedAt: at };
        out.push(id);
      }
      if (this.bug !== 'no-cascade') todo.push(...this.rows.filter((x) => x.parentId === id).map((x) => x.id));
    }
    return out;
  }
}

type OrgBug = 'partial-governance' | 'ignores-from' | 'drops-justification' | 'version-fixed' | 'lists-sessions' | 'returns-new-policy';

/** {@link NaiveStore} with the four governance methods (G1-G4), and optional bugs in them. */
class GovernedStore extends NaiveStore {
  private policies = new Map<string, OrgPolicyRecord>();
  private version = 0;
  constructor(private readonly orgBug?: OrgBug) {
    super();
    if (orgBug === 'partial-governance') (this as { listForOrg?: unknown }).listForOrg = undefined;
  }

  readPolicies(): OrgPolicySet {
    return { version: String(this.orgBug === 'version-fixed' ? 0 : this.version), policies: [...this.policies.values()] };
  }

  async setPolicy(p: OrgPolicyRecord): Promise<OrgPolicyRecord | null> {
    const old = this.policies.get(p.org) ?? null;
    this.policies.set(p.org, p);
    this.version++;
    return Promise.resolve(this.orgBug === 'returns-new-policy' ? p : old);
  }

  async updateOrgAccess(changes: readonly OrgAccessChange[]): Promise<string[]> {
    const out = new Set<string>();
    for (const c of changes) {
      const i = this.rows.findIndex((r) => r.id === c.id);
      const r = this.rows[i];
      if (r === undefined) continue;
      const list = r.orgAccess ?? [];
      const old = list.find((e) => e.org === c.entry.org);
      if (this.orgBug !== 'ignores-from' && !c.from.includes(old?.status ?? 'none')) continue;
      const keep = this.orgBug !== 'drops-justification' && old !== undefined;
      const entry = keep
        ? { ...c.entry, justification: c.entry.justification ?? old.justification, requestedAt: c.entry.requestedAt ?? old.requestedAt }
        : c.entry;
      this.rows[i] = { ...r, orgAccess: [...list.filter((e) => e.org !== c.entry.org), entry] };
      out.add(c.id);
    }
    return Promise.resolve([...out]);
  }

  async listForOrg(org: string): Promise<TokenRecord[]> {
    const reaches = (r: TokenRecord): boolean =>
      r.scopes === null ||
      r.scopes.some((s) => s.resource === undefined || s.resource === org || s.resource.startsWith(`${org}/`)) ||
      (r.orgAccess ?? []).some((e) => e.org === org);
    return Promise.resolve(this.rows.filter((r) => (r.kind === 'pat' || this.orgBug === 'lists-sessions') && reaches(r)));
  }
}

async function failures(store: () => TokenStore): Promise<string[]> {
  const failed: string[] = [];
  for (const c of conformanceCases()) {
    try {
      await c.run(store());
    } catch {
      failed.push(c.name);
    }
  }
  return failed;
}

describe('tokenStoreConformance', () => {
  it('a correct store passes every case', async () => {
    expect(await failures(() => new NaiveStore())).toEqual([]);
  });

  const bugs: Bug[] = [
    'no-name-check',
    'expired-name-still-taken',
    'components-take-names',
    'no-parent-check',
    'expired-parent-ok',
    'duplicate-overwrites',
    'chain-farthest-first',
    'list-newest-first',
    'no-cascade',
    'overwrites-revoked-at',
    'reports-all-revoked',
    'await-between-check-and-write',
    'loses-scopes',
    'shifts-dates',
    'loses-allowed-ips',
    'keeps-every-address',
    'address-moves-back',
    'marks-twice',
    'marks-components',
    'longer-after-shorter',
    'ignores-limit',
    'sessions-take-names',
    'refuses-sessions',
    'sessions-become-pats',
    'purge-orphans-children',
    'purge-removes-pats',
    'purge-before-not-at-cutoff',
    'purge-ignores-revoked',
    'purge-ignores-limit',
    'purge-takes-pat-subtrees',
    'purge-counts-sessions-only',
    'purge-throws-synchronously',
  ];
  for (const bug of bugs) {
    it(`catches a store with the bug: ${bug}`, async () => {
      expect((await failures(() => new NaiveStore(bug))).length).toBeGreaterThan(0);
    });
  }

  it('a correct store with governance passes every case', async () => {
    expect(await failures(() => new GovernedStore())).toEqual([]);
  });

  const orgBugs: OrgBug[] = [
    'partial-governance',
    'ignores-from',
    'drops-justification',
    'version-fixed',
    'lists-sessions',
    'returns-new-policy',
  ];
  for (const bug of orgBugs) {
    it(`catches a store with the governance bug: ${bug}`, async () => {
      expect((await failures(() => new GovernedStore(bug))).length).toBeGreaterThan(0);
    });
  }

  it('case names are unique', () => {
    const names = conformanceCases().map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
