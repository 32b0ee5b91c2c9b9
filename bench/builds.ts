/**
 * CPU per request of several builds of svc-auth, side by side in one process
 * (issue 23's request-path work): each build's `dist/` is imported on its own,
 * and the builds take turns in rotating rounds, so that every build sees the
 * same moments of a shared machine. The figure is this process's user + system
 * CPU time per call (`process.cpuUsage()`), which a loaded machine distorts far
 * less than requests per second; the table gives each build's minimum, first
 * quartile and median over the rounds. Not one of `npm run bench`'s benchmarks
 * (those are `*.bench.ts`), and not the peer table (`npm run bench:http`).
 *
 *   node --import tsx bench/builds.ts [--mode=memory|guard|postgres] <tree> [<tree> …]
 *
 * A tree is a checkout with a built `dist/` (`npm run build`), e.g. the
 * worktree of main and that of a branch. Modes, each with 64 hot PATs of one
 * user (one scope entry, roles from a synchronous source):
 *
 * - `memory` (default): `auth.authenticateRequest` of a node-like request +
 *   `auth.authorize`, memory store;
 * - `guard`: the same through `requireAuth` (with a permission), a response
 *   that only takes headers;
 * - `postgres` (needs `DATABASE_URL`): `auth.authenticate` + `auth.authorize`
 *   on `PostgresTokenStore`, one call at a time (goal 3's lone request), pool of
 *   16 shared by every build, with references in the same rotation: one bare
 *   `SELECT 1`, and one bare run of the store's lean probe as a named
 *   statement (what a known token costs pg itself).
 *
 * Options: `--rounds=N` (15), `--calls=N` per round (20 000; 1 000 for postgres).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

type Lib = typeof import('svc-auth');
type PgLib = typeof import('svc-auth/postgres');

function option(name: string): string | undefined {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit?.slice(name.length + 3);
}
const mode = option('mode') ?? 'memory';
if (!['memory', 'guard', 'postgres'].includes(mode)) throw new Error('--mode: memory, guard or postgres');
const rounds = Number(option('rounds') ?? 15);
const calls = Number(option('calls') ?? (mode === 'postgres' ? 1_000 : 20_000));
const trees = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (trees.length === 0) throw new Error('usage: bench/builds.ts [--mode=…] <tree with dist/> [<tree> …]');

interface Variant {
  name: string;
  op: () => Promise<unknown>;
  cpuNs: number[];
}

const members = { rolesOf: () => ({ orgs: { acme: 'editor' as const } }) };
const variants: Variant[] = [];
const cleanup: (() => Promise<unknown>)[] = [];
const pool =
  mode === 'postgres'
    ? new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://missing-DATABASE_URL', max: 16 })
    : undefined;
pool?.on('error', () => {});

for (const tree of trees) {
  const dist = (file: string): string => pathToFileURL(resolve(tree, 'dist', file)).href;
  const lib = (await import(dist('index.js'))) as Lib;
  let tokens;
  if (pool !== undefined) {
    const { PostgresTokenStore } = (await import(dist('postgres.js'))) as PgLib;
    const table = `svc_tokens_builds_${randomBytes(4).toString('hex')}`;
    tokens = new PostgresTokenStore({ pool, table });
    await tokens.migrate();
    cleanup.push(() => pool.query(`DROP TABLE IF EXISTS "${table}"`));
  }
  const auth = lib.createAuth({ issuer: 'https://svc.bench', keys: await lib.generateKeyRing(), members, ...(tokens ? { tokens } : {}) });
  const me = await auth.authenticate(await auth.issueSession('alice'));
  const hot: string[] = [];
  for (let i = 0; i < 64; i++) {
    hot.push(
      (await auth.client(me).token.create({ name: `b-${i}`, scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token,
    );
  }
  let i = 0;
  const allowed = (p: Awaited<ReturnType<typeof auth.authenticate>>): void => {
    if (!auth.authorize(p, 'acme/web', 'repo:read').allowed) throw new Error('the benchmark token is refused');
  };
  const request = (t: string) => ({
    method: 'GET',
    url: '/api/repos/acme/web/head',
    headers: { host: 'bench', authorization: `Bearer ${t}` },
    rawHeaders: ['Host', 'bench', 'Authorization', `Bearer ${t}`],
    socket: { remoteAddress: '127.0.0.1' },
  });
  const name = tree.replace(/\/+$/, '').split('/').pop() ?? tree;
  if (mode === 'postgres') {
    variants.push({ name, op: async () => allowed(await auth.authenticate(hot[i++ % 64] as string)), cpuNs: [] });
  } else if (mode === 'memory') {
    variants.push({ name, op: async () => allowed(await auth.authenticateRequest(request(hot[i++ % 64] as string))), cpuNs: [] });
  } else {
    const guard = lib.requireAuth(auth, { permission: 'repo:read', resource: () => 'acme/web' });
    const headers: Record<string, string> = {};
    const res = {
      setHeader: (n: string, v: string) => void (headers[n] = v),
      getHeaders: () => headers,
      writeHead: () => {
        throw new Error('the benchmark request is refused');
      },
      end: () => {},
    };
    variants.push({ name, op: () => guard(request(hot[i++ % 64] as string) as never, res as never, () => {}), cpuNs: [] });
  }
}
if (pool !== undefined) {
  // The references, through the same pool: what one round trip costs pg.
  const probe = `SELECT id, xmin::text AS row_version, revoked_at FROM svc_builds_probe WHERE id = $1`;
  await pool.query('CREATE TABLE IF NOT EXISTS svc_builds_probe (id text PRIMARY KEY, revoked_at timestamptz)');
  await pool.query(`INSERT INTO svc_builds_probe SELECT 'id-' || g, NULL FROM generate_series(0, 63) g ON CONFLICT DO NOTHING`);
  cleanup.push(() => pool.query('DROP TABLE IF EXISTS svc_builds_probe'));
  let k = 0;
  variants.push({ name: 'SELECT 1', op: () => pool.query('SELECT 1'), cpuNs: [] });
  variants.push({
    name: 'lean probe, bare pg',
    op: () => pool.query({ name: 'svc_builds_probe', text: probe, values: [`id-${k++ % 64}`] }),
    cpuNs: [],
  });
}

const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
for (const v of variants) for (let k = 0; k < (mode === 'postgres' ? 600 : 50_000); k++) await v.op();
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < variants.length; k++) {
    const v = variants[(k + r) % variants.length] as Variant;
    const c0 = cpuNow();
    for (let j = 0; j < calls; j++) await v.op();
    v.cpuNs.push(((cpuNow() - c0) * 1000) / calls);
  }
}
const at = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] as number;
const unit = mode === 'postgres' ? (n: number) => `${(n / 1000).toFixed(1)} µs` : (n: number) => `${n.toFixed(0)} ns`;
process.stdout.write(`| build (${mode}) | CPU per call: min | q1 | median |\n|---|---:|---:|---:|\n`);
for (const v of variants)
  process.stdout.write(`| ${v.name} | ${unit(at(v.cpuNs, 0))} | ${unit(at(v.cpuNs, 0.25))} | ${unit(at(v.cpuNs, 0.5))} |\n`);
for (const c of cleanup) await c();
await pool?.end();
