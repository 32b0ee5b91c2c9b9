/**
 * The embedded dev instance behind `svc`: everything lives in one folder,
 * `SVC_HOME` (default `~/.svc`), created on first use with mode 0700:
 * `keys.json` (the signing key ring), `tokens.json` (records), `members.json`
 * (roles; both in PostgreSQL instead when `SVC_DATABASE_URL` is set), `session.json` (the saved login) and `things.json` (the dev
 * server's contents). Every secret file is mode 0600 and every change is a
 * locked read-modify-write with an atomic replace (the store layer's
 * `JsonFile`), so several `svc` processes at once lose nothing (C3).
 * @module
 */
import { createHmac } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { UnavailableError, ValidationError } from '../../errors';
import { createAuth, type Auth, type AuthOptions } from '../../service';
import { FileMembershipStore, FileTokenStore, JsonFile, type MembershipStore, type TokenStore } from '../../stores';
import { generateKeyRing, importKeyRing, type KeyRing, type TrustedIssuer } from '../../tokens';
import { PostgresOAuthStorage, type OAuthStorage } from '../../oauth';
import { secureHome } from './home-perms';
import { FileOAuthStorage } from './oauth-file';
import { savedIssuer, sessionFile, type SavedSession } from './session-file';

/** The JWT issuer of the dev instance. */
export const DEV_ISSUER = 'svc-dev';

/**
 * The environment the CLI reads. Passed in, never read from globals, so that
 * tests can run commands in-process.
 *
 * @example
 * ```ts
 * const env: CliEnv = { SVC_HOME: '/tmp/svc-test', SVC_TOKEN: undefined };
 * ```
 */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/**
 * The folder holding the dev instance: `SVC_HOME`, else `~/.svc`.
 *
 * @example
 * ```ts
 * svcHome({ SVC_HOME: '/tmp/x' }); // '/tmp/x'
 * svcHome({});                     // '/home/me/.svc'
 * ```
 */
export function svcHome(env: CliEnv): string {
  const home = env.SVC_HOME;
  if (home !== undefined && home !== '') {
    if (home.includes('\0')) throw new ValidationError([{ path: 'SVC_HOME', message: 'must be a directory path' }]);
    return resolve(home);
  }
  return join(homedir(), '.svc');
}

/**
 * The clock of the instance. `SVC_NOW` (an ISO 8601 date) pins it, but only
 * when `SVC_ALLOW_TEST_CLOCK=1` is set too, so that a stray variable can never
 * move a real user's clock. Returns `undefined` for the real clock.
 *
 * @throws ValidationError when the test clock is allowed and `SVC_NOW` is not a date.
 * @example
 * ```ts
 * testClock({ SVC_ALLOW_TEST_CLOCK: '1', SVC_NOW: '2030-01-01T00:00:00Z' })?.(); // 2030-01-01
 * testClock({ SVC_NOW: '2030-01-01T00:00:00Z' }); // undefined: not allowed
 * ```
 */
export function testClock(env: CliEnv): (() => Date) | undefined {
  const text = env.SVC_NOW;
  if (env.SVC_ALLOW_TEST_CLOCK !== '1' || text === undefined || text === '') return undefined;
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(ms)) {
    throw new ValidationError([{ path: 'SVC_NOW', message: 'expected an ISO 8601 date such as 2030-01-01T00:00:00Z' }]);
  }
  return () => new Date(ms);
}

/**
 * An opened dev instance: the `Auth` object over the instance's stores, and
 * the files the commands use directly.
 *
 * @example
 * ```ts
 * const dev = await openInstance({ SVC_HOME: '/tmp/svc' });
 * try { await dev.members.set('alice', 'acme', 'editor'); } finally { await dev.close(); }
 * ```
 */
export interface DevInstance {
  readonly home: string;
  readonly auth: Auth;
  /** `SVC_HOME/members.json`, or a table in the instance's database when `SVC_DATABASE_URL` is set. */
  readonly members: MembershipStore;
  readonly tokens: TokenStore;
  readonly session: JsonFile<SavedSession>;
  /** The clock the instance uses (the test clock or the real one). */
  readonly now: () => Date;
  /**
   * The storage of `svc serve`'s authorization server: `SVC_HOME/oauth.json`, or a table in the
   * instance's database when `SVC_DATABASE_URL` is set (made on first use).
   */
  oauthStorage(): Promise<OAuthStorage>;
  /**
   * Another `Auth` on the instance's keys, stores and clock that also trusts `issuers`: `svc serve`
   * trusts its own authorization server, whose issuer (its base URL) is known only once it listens,
   * once per audience. Flushed by `close()` too.
   */
  authTrusting(issuers: readonly TrustedIssuer[]): Auth;
  /** Release what the instance holds (a database pool). */
  close(): Promise<void>;
}

/**
 * How to open the dev instance.
 *
 * @example
 * ```ts
 * const options: OpenOptions = { trustedIssuers: [{ issuer: 'http://localhost:8080/realms/dev', audience: 'svc' }] };
 * ```
 */
export interface OpenOptions {
  /** Receives a notice when the home's permissions are tightened. */
  notice?: (text: string) => void;
  /** Identity providers whose access tokens the instance accepts as sessions (`svc serve --trust-issuer`). */
  trustedIssuers?: TrustedIssuer[];
  /** Reverse proxies whose `X-Forwarded-For` the instance believes (`svc serve --trust-proxy`). */
  trustProxy?: string[];
  /** Workloads whose identity tokens are exchanged for tokens of service accounts (`svc serve --trust-workloads`). */
  trustedWorkloads?: AuthOptions['trustedWorkloads'];
  /** Require this instance's nonce in every DPoP proof (`svc serve --dpop-nonce`), from a secret every server on it derives alike. */
  dpopNonce?: boolean;
  /**
   * Accept the saved session's server as a trusted issuer (its base URL, audience the
   * same, keys from its JWKS), when the saved session was signed in there and
   * `SVC_TOKEN` is not set: the commands that act as the signed-in user.
   */
  trustSavedSession?: boolean;
}

/**
 * Open (creating on first use) the dev instance in {@link svcHome}. An existing
 * home that others may read or write is tightened (each change reported to
 * `options.notice`), or refused when it is not ours. The key
 * ring is generated under the file's lock, so processes starting together
 * agree on one ring. When `SVC_DATABASE_URL` is set, token records and
 * memberships live in PostgreSQL (`pg` must be installed; both tables are
 * migrated on open, an older schema upgraded in place), so that `svc member`
 * and every server on that database read the same roles.
 *
 * @throws UnavailableError when a file is corrupt or unreadable, or the database cannot be used.
 * @example
 * ```ts
 * const dev = await openInstance(process.env);
 * const session = await dev.auth.issueSession('alice');
 * await dev.close();
 * ```
 */
export async function openInstance(env: CliEnv, options: OpenOptions = {}): Promise<DevInstance> {
  const home = svcHome(env);
  await secureHome(home, options.notice ?? (() => undefined));
  const clock = testClock(env);
  const now = clock ?? (() => new Date());
  const session = sessionFile(home);
  const keys = await loadKeyRing(home);
  const { tokens, members, close, pool } = await openStores(home, env);
  const oauthStorage = async (): Promise<OAuthStorage> => {
    if (pool === undefined) return new FileOAuthStorage(home);
    const storage = new PostgresOAuthStorage({ pool });
    await storage.migrate();
    return storage;
  };
  const built: Auth[] = [];
  const authWith = (trusted: readonly TrustedIssuer[]): Auth => {
    const a = createAuth({
      issuer: DEV_ISSUER,
      keys,
      members,
      tokens,
      ...(clock ? { now: clock } : {}),
      ...(trusted.length === 0 ? {} : { trustedIssuers: [...trusted] }),
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
      ...(options.trustedWorkloads === undefined ? {} : { trustedWorkloads: options.trustedWorkloads }),
      ...(options.dpopNonce === true ? { dpopNonce: { secret: nonceSecret(keys) } } : {}),
    });
    built.push(a);
    return a;
  };
  try {
    const own = [...(options.trustedIssuers ?? []), ...(options.trustSavedSession === true ? await savedIssuer(session, env) : [])];
    const auth = authWith(own);
    // A one-shot command exits right after: write its last-used time before the store closes.
    const flushThenClose = async (): Promise<void> => {
      await Promise.all(built.map((a) => a.flush()));
      await close();
    };
    const authTrusting = (issuers: readonly TrustedIssuer[]): Auth => authWith([...own, ...issuers]);
    return { home, auth, members, tokens, session, now, oauthStorage, authTrusting, close: flushThenClose };
  } catch (err) {
    await close();
    throw err;
  }
}

interface StoredKeys {
  keys: unknown[];
}

/** Read the ring, or make it: generated inside the locked update so two first uses cannot both write one. */
export async function loadKeyRing(home: string): Promise<KeyRing> {
  const file = new JsonFile<StoredKeys>(join(home, 'keys.json'), {
    mode: 0o600,
    label: 'key ring',
    parse: (data) => {
      const keys = (data as { keys?: unknown } | null)?.keys;
      if (!Array.isArray(keys) || keys.length === 0)
        throw new ValidationError([{ path: 'keys', message: 'expected a non-empty list of JWKs' }]);
      return { keys };
    },
  });
  let stored = await file.read();
  if (stored === undefined) {
    stored = await file.update(async (current) => (current === undefined ? (await generateKeyRing()).exportPrivate() : undefined));
  }
  try {
    return await importKeyRing(stored as Parameters<typeof importKeyRing>[0]);
  } catch (err) {
    throw new UnavailableError(`the key ring ${file.path} is not valid; it was left untouched: repair it or move it away`, { cause: err });
  }
}

/**
 * The DPoP nonce secret of the instance: derived from its private signing keys, which every server on the
 * instance holds, under a label of its own (a nonce reveals nothing of them). Rotating the ring changes it:
 * clients are then asked once for a new nonce.
 */
function nonceSecret(keys: KeyRing): Buffer {
  return createHmac('sha256', JSON.stringify(keys.exportPrivate())).update('svc-auth resource dpop nonce').digest();
}

/** The token and membership stores: files in `home`, or tables in `SVC_DATABASE_URL`'s database. */
async function openStores(
  home: string,
  env: CliEnv,
): Promise<{ tokens: TokenStore; members: MembershipStore; close: () => Promise<void>; pool?: import('pg').Pool }> {
  const url = env.SVC_DATABASE_URL;
  if (url === undefined || url === '') {
    return { tokens: new FileTokenStore(home), members: new FileMembershipStore(home), close: () => Promise.resolve() };
  }
  let pg: typeof import('pg');
  try {
    // Optional peer dependency: only a database user needs it installed.
    const mod = (await import('pg')) as typeof import('pg') & { default?: typeof import('pg') };
    pg = mod.default ?? mod;
  } catch (err) {
    throw new UnavailableError("SVC_DATABASE_URL is set but the 'pg' package is not installed: run npm install pg", { cause: err });
  }
  const { PostgresTokenStore, PostgresMembershipStore } = await import('../../stores/postgres');
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  // An idle connection dropping must not crash the CLI; the next call reports it.
  pool.on('error', () => undefined);
  const close = async (): Promise<void> => {
    await pool.end().catch(() => undefined);
  };
  try {
    const tokens = new PostgresTokenStore({ pool });
    const members = new PostgresMembershipStore({ pool });
    await tokens.migrate();
    await members.migrate();
    return { tokens, members, close, pool };
  } catch (err) {
    await close();
    throw err;
  }
}
