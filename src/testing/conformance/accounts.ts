/**
 * Conformance cases for service accounts (W1; optional, all three methods or none):
 * `putServiceAccount`'s compare-and-set on the version, client ids unique across accounts,
 * `readServiceAccount` and `listServiceAccounts` handing back what was stored, and nothing a
 * caller does to a returned record changing what is stored. Each case uses an org of its own.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { MachineClientRecord, ServiceAccountRecord, TokenStore } from '../../stores';
import { at, type CaseRegistrar } from './fixtures';

const METHODS = ['readServiceAccount', 'listServiceAccounts', 'putServiceAccount'] as const;
type Accounts = TokenStore & Required<Pick<TokenStore, (typeof METHODS)[number]>>;

function accounts(s: TokenStore): Accounts | null {
  const offered = METHODS.filter((m) => typeof s[m] === 'function');
  if (offered.length === 0) return null;
  expect(offered, 'a store offers all three service account methods or none').toEqual([...METHODS]);
  return s as Accounts;
}

const freshOrg = (): string => `o${randomUUID().replaceAll('-', '')}`;

const account = (org: string, name: string, over: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord => ({
  org,
  name,
  role: 'editor',
  description: 'deploys',
  disabled: false,
  clients: [],
  createdBy: 'owner-1',
  createdAt: at(0),
  updatedBy: 'owner-1',
  updatedAt: at(0),
  version: 1,
  ...over,
});

const client = (id: string): MachineClientRecord => ({
  clientId: id,
  method: 'private_key_jwt',
  jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] },
  secretHash: null,
  createdBy: 'owner-1',
  createdAt: at(1000),
  revokedAt: null,
});

/**
 * @internal Register the service account cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * accountCases((name, run) => cases.push({ name, run: (s, twin) => run(() => s, () => twin) }));
 * ```
 */
export function accountCases(it: CaseRegistrar): void {
  it('service accounts (optional): a store offers readServiceAccount, listServiceAccounts and putServiceAccount together or none', async (store) => {
    accounts(store());
    await Promise.resolve();
  });

  it('service accounts: version 1 creates once; a change must follow the stored version; reads hand back what was stored', async (store) => {
    const s = accounts(store());
    if (s === null) return;
    const org = freshOrg();
    expect(await s.readServiceAccount(org, 'ci-bot')).toBeNull();
    expect(await s.putServiceAccount(account(org, 'ci-bot'))).toBe(true);
    expect(await s.putServiceAccount(account(org, 'ci-bot', { role: 'owner' })), 'a second create').toBe(false);
    expect(await s.putServiceAccount(account(org, 'ci-bot', { version: 3, role: 'owner' })), 'skipping a version').toBe(false);
    const v2 = account(org, 'ci-bot', {
      version: 2,
      role: 'viewer',
      disabled: true,
      updatedAt: at(5000),
      clients: [client(`sa~${org}~ci-bot~${'a'.repeat(22)}`)],
    });
    expect(await s.putServiceAccount(v2)).toBe(true);
    expect(await s.putServiceAccount({ ...v2, role: 'owner' }), 'a stale version 2').toBe(false);
    const got = await s.readServiceAccount(org, 'ci-bot');
    expect(got).toMatchObject({ org, name: 'ci-bot', role: 'viewer', disabled: true, version: 2 });
    expect(got?.updatedAt.getTime()).toBe(at(5000).getTime());
    expect(got?.clients.map((c) => c.clientId)).toEqual([`sa~${org}~ci-bot~${'a'.repeat(22)}`]);
    expect(got?.clients[0]?.jwks?.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
  });

  it('service accounts: listServiceAccounts is one org, by name; a returned record cannot change what is stored', async (store) => {
    const s = accounts(store());
    if (s === null) return;
    const org = freshOrg();
    for (const name of ['zeta', 'alpha', 'mid']) expect(await s.putServiceAccount(account(org, name))).toBe(true);
    expect(await s.putServiceAccount(account(freshOrg(), 'other'))).toBe(true);
    const list = await s.listServiceAccounts(org);
    expect(list.map((a) => a.name)).toEqual(['alpha', 'mid', 'zeta']);
    try {
      (list[0] as { role: string }).role = 'owner';
    } catch {
      // frozen: fine
    }
    expect((await s.readServiceAccount(org, 'alpha'))?.role).toBe('editor');
  });

  it('service accounts: a client id another account holds is refused (ConflictError) and nothing is stored', async (store) => {
    const s = accounts(store());
    if (s === null) return;
    const org = freshOrg();
    const id = `sa~${org}~one~${'b'.repeat(22)}`;
    expect(await s.putServiceAccount(account(org, 'one', { clients: [client(id)] }))).toBe(true);
    // By code, not class: a store from another copy of the package throws that copy's ConflictError.
    await expect(s.putServiceAccount(account(org, 'two', { clients: [client(id)] }))).rejects.toMatchObject({ code: 'conflict' });
    expect(await s.readServiceAccount(org, 'two')).toBeNull();
  });

  it('service accounts: hostile records are refused with ValidationError (a private key, a bad org, a bad role)', async (store) => {
    const s = accounts(store());
    if (s === null) return;
    const org = freshOrg();
    const privateKey = {
      ...client(`sa~${org}~x~${'c'.repeat(22)}`),
      jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'secret' }] },
    };
    await expect(s.putServiceAccount(account(org, 'x', { clients: [privateKey] }))).rejects.toMatchObject({ code: 'validation' });
    await expect(s.putServiceAccount(account('ACME', 'x'))).rejects.toMatchObject({ code: 'validation' });
    await expect(s.putServiceAccount(account(org, 'x', { role: 'god' as never }))).rejects.toMatchObject({ code: 'validation' });
    expect(await s.readServiceAccount(org, 'x')).toBeNull();
  });
}
