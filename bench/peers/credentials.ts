/**
 * The credentials of each variant of the peer HTTP benchmark, made in the
 * server process: 64 distinct hot credentials per variant (one user's traffic
 * carries many), and what the server needs to check them. svc-auth is reached
 * only through its package names, so that `--dist` measures the built package.
 * Not a benchmark itself; see bench/peers/run.ts.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SignJWT, exportSPKI, exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import pg from 'pg';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { apiKey } from '@better-auth/api-key';
import { createAuth, generateKeyRing, type Auth } from 'svc-auth';
import { PostgresTokenStore } from 'svc-auth/postgres';
import type { Kind } from './variants';

export const ISSUER = 'https://svc.bench';
export const TOKENS = 64;
export const POOL_SIZE = 16;
/** What every variant's route needs: `repo:read` (on `acme/web` where the credential can say so). */
export const SCOPE = 'repo:read';

/**
 * An HTTP status for an `authorization` header: 200 to serve the route, else
 * the refusal. The framework-neutral checks (jose by hand, better-auth, the
 * `SELECT 1` reference) are written once and mounted in each framework the
 * way its users write a middleware.
 */
export type Check = (authorization: string | undefined) => Promise<200 | 401 | 403>;

export interface JwtKeys {
  alg: 'EdDSA' | 'HS256';
  /** HS256: the shared secret. EdDSA: the public key, SPKI PEM. */
  verifyPem: string;
  /** EdDSA: the private key, PKCS#8 PEM (`@fastify/jwt` wants both halves). */
  signPem?: string;
}

/** A DPoP key pair as the load generator needs it: the private key (PKCS#8 PEM) and the public JWK. */
export interface DpopKey {
  pkcs8: string;
  jwk: { kty: string; crv: string; x: string };
}

export interface Setup {
  /** The bearer credentials autocannon cycles through. */
  tokens: string[];
  check?: Check;
  jwt?: JwtKeys;
  auth?: Auth;
  /** The pool of the PostgreSQL variants (svc-auth's store, the `SELECT 1` reference). */
  pool?: pg.Pool;
  /** `svc-bound`: the key the tokens are bound to, for the load generator to sign proofs with. */
  dpop?: DpopKey;
  close(): Promise<void>;
}

/** The bearer token of an `authorization` header, as every peer reads it. */
export function bearer(authorization: string | undefined): string | undefined {
  return authorization !== undefined && authorization.startsWith('Bearer ') ? authorization.slice(7) : undefined;
}

/** The claim check the JWT peers do after verifying: an OAuth-style space-separated `scope`. */
export function hasScope(payload: unknown): boolean {
  const scope = (payload as { scope?: unknown } | undefined)?.scope;
  return typeof scope === 'string' && scope.split(' ').includes(SCOPE);
}

function newPool(options: pg.PoolConfig = {}): pg.Pool {
  const url = process.env.DATABASE_URL;
  if (url === undefined || url === '') throw new Error('DATABASE_URL is not set');
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, ...options });
  pool.on('error', () => {});
  return pool;
}

const ROLES = { orgs: { acme: 'editor' as const } };

async function svcAuth(store: 'memory' | 'postgres', bound = false): Promise<Setup> {
  const keys = await generateKeyRing();
  const members = { rolesOf: () => ROLES };
  let pool: pg.Pool | undefined;
  let table: string | undefined;
  let auth: Auth;
  if (store === 'postgres') {
    pool = newPool();
    table = `svc_tokens_bench_peers_${randomBytes(4).toString('hex')}`;
    const tokens = new PostgresTokenStore({ pool, table });
    await tokens.migrate();
    auth = createAuth({ issuer: ISSUER, keys, members, tokens });
  } else {
    auth = createAuth({ issuer: ISSUER, keys, members });
  }
  const me = await auth.authenticate(await auth.issueSession('alice'));
  const tokens: string[] = [];
  const pair = bound ? generateKeyPairSync('ed25519') : undefined;
  const jwk = pair === undefined ? undefined : (pair.publicKey.export({ format: 'jwk' }) as DpopKey['jwk']);
  for (let i = 0; i < TOKENS; i++) {
    const made = await auth.client(me).token.create({
      name: `bench-${i}`,
      scopes: [{ resource: 'acme/web', permissions: [SCOPE] }],
      ...(jwk === undefined ? {} : { bindKey: jwk }),
    });
    tokens.push(made.token);
  }
  return {
    tokens,
    auth,
    ...(pair === undefined || jwk === undefined
      ? {}
      : { dpop: { pkcs8: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, jwk } }),
    ...(pool === undefined ? {} : { pool }),
    close: async () => {
      if (pool === undefined) return;
      const sides = ['org_policies', 'governance', 'dpop_proofs', 'service_accounts', 'machine_clients'].map((t) => `"${table}_${t}"`);
      await pool.query(`DROP TABLE IF EXISTS "${table}", ${sides.join(', ')}`).catch(() => undefined);
      await pool.end();
    },
  };
}

async function jwtPeer(alg: 'EdDSA' | 'HS256'): Promise<Setup> {
  let signWith: CryptoKey | Uint8Array;
  let verifyWith: CryptoKey | Uint8Array;
  let jwt: JwtKeys;
  if (alg === 'EdDSA') {
    const pair = await generateKeyPair('EdDSA', { extractable: true });
    signWith = pair.privateKey;
    verifyWith = pair.publicKey;
    jwt = { alg, verifyPem: await exportSPKI(pair.publicKey), signPem: await exportPKCS8(pair.privateKey) };
  } else {
    const secret = randomBytes(32).toString('base64url');
    signWith = verifyWith = new TextEncoder().encode(secret);
    jwt = { alg, verifyPem: secret };
  }
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    tokens.push(
      await new SignJWT({ scope: SCOPE })
        .setProtectedHeader({ alg, typ: 'JWT' })
        .setSubject(`user-${i}`)
        .setIssuer(ISSUER)
        .setIssuedAt()
        .setExpirationTime('2h')
        .sign(signWith),
    );
  }
  // jose by hand, as its README shows: the key imported once, then jwtVerify per request.
  const check: Check = async (authorization) => {
    const token = bearer(authorization);
    if (token === undefined) return 401;
    try {
      const { payload } = await jwtVerify(token, verifyWith, { issuer: ISSUER, algorithms: [alg] });
      return hasScope(payload) ? 200 : 403;
    } catch {
      return 401;
    }
  };
  return { tokens, jwt, check, close: async () => {} };
}

async function betterAuthPeer(): Promise<Setup> {
  // A schema of its own in the test database: better-auth's tables (user, session, account,
  // verification, apikey) next to nothing else, dropped when the server stops.
  const schema = `svc_bench_better_auth_${randomBytes(4).toString('hex')}`;
  const admin = newPool({ max: 1 });
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const pool = newPool({ options: `-c search_path=${schema}` });
  const auth = betterAuth({
    database: pool,
    secret: randomBytes(32).toString('base64url'),
    baseURL: 'http://127.0.0.1',
    telemetry: { enabled: false },
    // Refusals are part of the benchmark's checks, not errors to print.
    logger: { disabled: true },
    // The plugin's default limit is 10 requests per key per day: a benchmark cannot run under it.
    // Everything else is the plugin's default (hashed keys, usage recorded on the key's row).
    plugins: [apiKey({ rateLimit: { enabled: false } })],
  });
  const { runMigrations } = await getMigrations(auth.options);
  await runMigrations();
  const context = await auth.$context;
  const user = await context.internalAdapter.createUser(
    { email: 'alice@example.com', name: 'alice', emailVerified: true },
    { method: 'admin' },
  );
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    const made = await auth.api.createApiKey({ body: { userId: user.id, name: `bench-${i}`, permissions: { repo: ['read'] } } });
    tokens.push(made.key);
  }
  const check: Check = async (authorization) => {
    const key = bearer(authorization);
    if (key === undefined) return 401;
    const result = await auth.api.verifyApiKey({ body: { key, permissions: { repo: ['read'] } } });
    return result.valid ? 200 : 401;
  };
  return {
    tokens,
    check,
    close: async () => {
      await pool.end();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await admin.end();
    },
  };
}

async function select1(): Promise<Setup> {
  const pool = newPool();
  const check: Check = async () => {
    await pool.query('SELECT 1');
    return 200;
  };
  return { tokens: await opaque(), check, pool, close: () => pool.end() };
}

/**
 * Credentials nobody checks, for the references without auth: the same header bytes on the
 * wire as svc-auth's PATs (opaque text of a PAT's length), so that what the guarded servers
 * are compared with receives the same requests and differs only in checking them.
 */
async function opaque(): Promise<string[]> {
  const length = await svcPatLength();
  return Array.from({ length: TOKENS }, () =>
    randomBytes(Math.ceil((length * 3) / 4))
      .toString('base64url')
      .slice(0, length),
  );
}

let patLength: Promise<number> | undefined;

/** The length of a PAT as the svc-auth variants make them (one made once per run). */
function svcPatLength(): Promise<number> {
  patLength ??= (async () => {
    const auth = createAuth({ issuer: ISSUER, keys: await generateKeyRing(), members: { rolesOf: () => ROLES } });
    const me = await auth.authenticate(await auth.issueSession('alice'));
    const made = await auth.client(me).token.create({ name: 'bench-0', scopes: [{ resource: 'acme/web', permissions: [SCOPE] }] });
    return made.token.length;
  })();
  return patLength;
}

/** The credentials and checks of one kind. */
export async function setUp(kind: Kind): Promise<Setup> {
  switch (kind) {
    case 'bare':
      return { tokens: await opaque(), close: async () => {} };
    case 'select1':
      return select1();
    case 'jwt-eddsa':
    case 'jwt-eddsa-cached':
      return jwtPeer('EdDSA');
    case 'jwt-hs256':
    case 'jwt-hs256-cached':
      return jwtPeer('HS256');
    case 'svc-memory':
    case 'svc-no-expiry':
      return svcAuth('memory');
    case 'svc-bound':
      return svcAuth('memory', true);
    case 'svc-postgres':
      return svcAuth('postgres');
    case 'better-auth':
      return betterAuthPeer();
  }
}
