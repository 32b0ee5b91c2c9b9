/**
 * What the peer HTTP benchmark measures: four frameworks, and in each the
 * same route (`GET /api/repos/acme/web/head`, JSON answer) behind each way of
 * authenticating a bearer credential. Not a benchmark itself (run.ts only
 * loads `*.bench.ts`); see bench/peers/run.ts.
 */

export const FRAMEWORKS = ['node', 'express', 'fastify', 'hono'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export const FRAMEWORK_LABEL: Record<Framework, string> = {
  node: 'node:http',
  express: 'Express 5',
  fastify: 'Fastify 5',
  hono: 'Hono (@hono/node-server)',
};

/**
 * - `bare`: no authentication (the request still carries the bearer header).
 * - `select1`: no authentication, one `SELECT 1` through a pool of 16 per request:
 *   the floor of any request that reads PostgreSQL.
 * - `jwt-*`: the framework's popular JWT middleware (signature, `exp`, issuer, then
 *   the `scope` claim must hold `repo:read`); `-cached` with the middleware's own
 *   verified-token cache turned on, where it has one.
 * - `svc-memory`, `svc-postgres`: svc-auth's adapter for the framework with
 *   `repo:read` on `acme/web` (verify, read the token's record, roles, authorize),
 *   `MemoryTokenStore` or `PostgresTokenStore` (pool of 16).
 * - `svc-no-expiry`: `svc-memory` with `expirationHeader: false`: the guard's own cost
 *   apart from the one response header it adds by default (`Svc-Token-Expiration`).
 * - `svc-bound`: `svc-memory` with key-bound PATs (issue 32): every request is
 *   `Authorization: DPoP <token>` with a fresh proof by the key (signed by the load
 *   generator before the timed window), which the server verifies and spends once.
 * - `better-auth`: better-auth's apiKey plugin on PostgreSQL (pool of 16),
 *   `verifyApiKey` with `{ repo: ['read'] }` on every request.
 */
export const KINDS = [
  'bare',
  'select1',
  'jwt-eddsa',
  'jwt-hs256',
  'jwt-eddsa-cached',
  'jwt-hs256-cached',
  'svc-memory',
  'svc-no-expiry',
  'svc-bound',
  'svc-postgres',
  'better-auth',
] as const;
export type Kind = (typeof KINDS)[number];

/** Kinds that need `DATABASE_URL`. */
export const DATABASE_KINDS: readonly Kind[] = ['select1', 'svc-postgres', 'better-auth'];

/** Kinds with no authentication at all: proven to answer 200, not 401. */
export const REFERENCE_KINDS: readonly Kind[] = ['bare', 'select1'];

/** The kinds measured in a framework: the cached JWT ones only where the middleware has a cache. */
export function kindsOf(framework: Framework): Kind[] {
  return KINDS.filter((k) => !k.endsWith('-cached') || framework === 'fastify');
}

/** Who does the work in a variant, as the tables name it. */
export function peerOf(framework: Framework, kind: Kind): string {
  switch (kind) {
    case 'bare':
      return 'no auth';
    case 'select1':
      return 'no auth, one `SELECT 1`';
    case 'svc-memory':
      return 'svc-auth, memory store';
    case 'svc-no-expiry':
      return 'svc-auth, memory store, `expirationHeader: false`';
    case 'svc-bound':
      return 'svc-auth, memory store, key-bound PAT + DPoP proof';
    case 'svc-postgres':
      return 'svc-auth, PostgreSQL store';
    case 'better-auth':
      return 'better-auth apiKey, PostgreSQL';
    default: {
      const alg = kind.startsWith('jwt-eddsa') ? 'EdDSA' : 'HS256';
      const cached = kind.endsWith('-cached') ? ', `verify: { cache: true }`' : '';
      return `${jwtMiddleware(framework, alg)}, ${alg}${cached}`;
    }
  }
}

/** The JWT middleware a user of the framework would reach for first. */
export function jwtMiddleware(framework: Framework, alg: 'EdDSA' | 'HS256'): string {
  switch (framework) {
    case 'node':
      return 'jose by hand';
    case 'express':
      // express-jwt verifies with jsonwebtoken, which has no EdDSA.
      return alg === 'HS256' ? 'express-jwt' : 'jose by hand';
    case 'fastify':
      return '@fastify/jwt';
    case 'hono':
      return 'hono/jwt';
  }
}
