/**
 * Shared set-up of the service tests: a pinned clock, a memory store, an
 * in-memory role table, one key ring per file.
 */
import { createAuth, type Auth, type AuthOptions } from '../../src/service';
import { MemoryTokenStore, type TokenStore } from '../../src/stores';
import type { UserRoles } from '../../src/core/policy';
import { generateKeyRing, type KeyRing } from '../../src/tokens';
import { Clock } from '../support/clock';

let ring: Promise<KeyRing> | undefined;
/** One EdDSA ring shared by a test file (generation is the slow part). */
export function sharedRing(): Promise<KeyRing> {
  ring ??= generateKeyRing();
  return ring;
}

export interface Setup {
  auth: Auth;
  clock: Clock;
  store: TokenStore;
  roles: Map<string, UserRoles>;
}

/** Build an Auth over a memory store, a pinned clock and a mutable role table. */
export async function setup(extra: Partial<AuthOptions> = {}): Promise<Setup> {
  const clock = new Clock();
  const store = extra.tokens ?? new MemoryTokenStore();
  const roles = new Map<string, UserRoles>([
    ['alice', { orgs: { acme: 'owner' } }],
    ['bob', { orgs: { acme: 'viewer' } }],
  ]);
  const auth = createAuth({
    issuer: 'https://svc.test',
    keys: await sharedRing(),
    members: { rolesOf: (u) => roles.get(u) ?? {} },
    now: clock.now,
    ...extra,
    tokens: store,
  });
  return { auth, clock, store, roles };
}
