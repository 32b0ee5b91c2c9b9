/**
 * The one `Auth` of the tests: the real `createAuth` over a memory token store, a key ring shared by
 * the run (generating one is the slow part), a pinned clock the test moves by hand, a role table it
 * can edit, and every event collected. Override any option as `createAuth` takes it; a test about
 * `createAuth`'s own options calls `createAuth` itself.
 *
 * @example
 * const { auth, clock, events } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, trustProxy: ['127.0.0.9'] });
 */
import {
  createAuth,
  generateKeyRing,
  MemoryTokenStore,
  type Auth,
  type AuthEvent,
  type AuthOptions,
  type KeyRing,
  type TokenStore,
  type UserRoles,
} from 'svc-auth';
import { Clock } from './clock';

let ring: Promise<KeyRing> | undefined;
/** One EdDSA ring for the run. A test that needs keys nobody else holds passes `keys: await generateKeyRing()`. */
export function sharedRing(): Promise<KeyRing> {
  ring ??= generateKeyRing();
  return ring;
}

/**
 * The system clock, for an `Auth` that must agree with a server keeping real time (the OAuth server,
 * oidc-provider): `testAuth({ now: systemTime })`.
 */
export const systemTime = (): Date => new Date();

/** alice owns acme, bob views it, anybody else has no role: the table most tests read. */
export const ROLES: Readonly<Record<string, UserRoles>> = {
  alice: { orgs: { acme: 'owner' } },
  bob: { orgs: { acme: 'viewer' } },
};

export interface TestAuthOptions extends Partial<Omit<AuthOptions, 'onEvent'>> {
  /** The event hook; by default every event goes to `events`, and `undefined` builds an Auth without a hook. */
  onEvent?: AuthOptions['onEvent'] | undefined;
  /** Each user's roles (default {@link ROLES}); ignored when `everyone` or `members` is given. */
  roles?: Record<string, UserRoles>;
  /** The roles of every user, whoever signs in. */
  everyone?: UserRoles;
  /** The clock behind `now` (a fresh one at T0 by default). Pass `now` instead for the system time. */
  clock?: Clock;
}

export interface TestAuth {
  auth: Auth;
  clock: Clock;
  /** The token store of `auth`. */
  store: TokenStore;
  /** The role table `members` reads; edit it to change a user's roles. */
  roles: Map<string, UserRoles>;
  /** Every event `auth` emitted (unless `onEvent` was overridden). */
  events: AuthEvent[];
  keys: KeyRing;
}

/** Build the test `Auth`: issuer `https://svc.test`, memory store, shared ring, pinned clock, roles of {@link ROLES}. */
export async function testAuth(options: TestAuthOptions = {}): Promise<TestAuth> {
  const { roles: given = ROLES, everyone, clock = new Clock(), onEvent, ...rest } = options;
  const roles = new Map(Object.entries(given));
  const events: AuthEvent[] = [];
  const store = rest.tokens ?? new MemoryTokenStore();
  const keys = rest.keys ?? (await sharedRing());
  const auth = createAuth({
    issuer: 'https://svc.test',
    members: { rolesOf: (user) => everyone ?? roles.get(user) ?? {} },
    now: clock.now,
    ...('onEvent' in options ? (onEvent === undefined ? {} : { onEvent }) : { onEvent: (e: AuthEvent) => void events.push(e) }),
    ...rest,
    keys,
    tokens: store,
  });
  return { auth, clock, store, roles, events, keys };
}
