/**
 * What this release's features cost on the hot path (issue 33, goal 5), each
 * against a plain person's PAT measured in the same rounds:
 *
 * - a service account's PAT, and a PAT of an org that has a policy (the org
 *   gate read and applied on every request), hot on the memory store;
 * - on PostgreSQL, the statements one `authenticate` sends for each (the goal:
 *   one), and 32 in flight with the policy against without (within 5%);
 * - a key-bound PAT with a fresh DPoP proof: on PostgreSQL its replay claim (a
 *   durable write) is sent beside the record read, so the request should wait for
 *   the longer of the two, plus the proof's check, and nothing more. What it waits
 *   beyond that is counted in round trips of one `SELECT 1`: 0 is no extra wait, 1
 *   is one more round trip.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- features
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createAuth } from '../src/service/auth';
import type { Auth } from '../src/service';
import { MemoryTokenStore } from '../src/stores';
import { PostgresTokenStore } from '../src/stores/postgres/tokens/store';
import { generateKeyRing } from '../src/tokens/keys/keyring';
import type { KeyRing } from '../src/tokens';
import { ProofSigner } from './peers/dpop';
import { countedPool } from './counted-pool';
import { figure } from './results';
import { median, rate } from './timing';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 9;
const ROUND_MS = quick ? 100 : 250;
const IN_FLIGHT = 32;
const DISTINCT = 32;
const COUNTED = 100;
const URL_ = 'https://svc.bench/api/repos/free/web/head';

interface Kinds {
  person: string[];
  account: string[];
  governed: string[];
  bound: string[];
}

/** alice owns both orgs; `acme` has a policy (that every token here keeps), `free` none. */
async function tokensOf(auth: Auth, jwk: Record<string, string>): Promise<Kinds> {
  const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
  await alice.org('acme').policy.set({ maxLifetime: '90d' });
  await alice.org('free').serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
  const bot = alice.org('free').serviceAccount('ci-bot');
  const kinds: Kinds = { person: [], account: [], governed: [], bound: [] };
  for (let i = 0; i < DISTINCT; i++) {
    const free = [{ resource: 'free/web', permissions: ['repo:read' as const] }];
    kinds.person.push((await alice.token.create({ name: `p${i}`, scopes: free, expiresIn: '30d' })).token);
    kinds.account.push((await bot.token.create({ name: `a${i}`, scopes: free, expiresIn: '30d' })).token);
    const acme = [{ resource: 'acme/web', permissions: ['repo:read' as const] }];
    kinds.governed.push((await alice.token.create({ name: `g${i}`, scopes: acme, expiresIn: '30d' })).token);
    kinds.bound.push((await alice.token.create({ name: `b${i}`, scopes: free, expiresIn: '30d', bindKey: jwk })).token);
  }
  return kinds;
}

/** Microseconds per call of `op`, called one at a time for about `ms`. */
async function perCall(op: (i: number) => Promise<unknown>, ms: number): Promise<number> {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) await op(n++);
  return ((performance.now() - start) * 1000) / n;
}

/** Median over rounds of each op's µs per call, the ops timed back to back within each round. */
async function rounds(ops: ((i: number) => Promise<unknown>)[]): Promise<number[]> {
  const seen: number[][] = ops.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, op] of ops.entries()) (seen[k] as number[]).push(await perCall(op, ROUND_MS));
  }
  return seen.map(median);
}

/** Requests for `tokens`, each bound PAT with a proof signed now (one per request: a proof is good once). */
function boundRequests(signer: ProofSigner, tokens: readonly string[], n: number): Request[] {
  return Array.from({ length: n }, (_, i) => {
    const token = tokens[i % tokens.length] as string;
    return new Request(URL_, { headers: { authorization: `DPoP ${token}`, dpop: signer.proof(token) } });
  });
}

const plain = (tokens: readonly string[]) => (i: number) =>
  new Request(URL_, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } });

interface Measured {
  /** µs per authenticate: person, account, governed, bound (Bearer requests; bound with a proof). */
  us: number[];
}

/** Hot authenticateRequest of each kind, in rounds. Bound requests take the next pre-signed proof. */
async function measure(auth: Auth, kinds: Kinds, signer: ProofSigner): Promise<Measured> {
  const budget = Math.ceil((ROUNDS * ROUND_MS * 40_000) / 1000); // generous: ~40k bound requests a second at most
  const proofs = boundRequests(signer, kinds.bound, budget);
  let next = 0;
  for (const k of [kinds.person, kinds.account, kinds.governed]) for (const t of k) await auth.authenticate(t);
  for (let i = 0; i < kinds.bound.length; i++) await auth.authenticateRequest(proofs[next++] as Request);
  const req = [plain(kinds.person), plain(kinds.account), plain(kinds.governed)];
  const us = await rounds([
    ...req.map((make) => (i: number) => auth.authenticateRequest(make(i))),
    () => {
      const r = proofs[next++];
      if (r === undefined) throw new Error('features bench: out of pre-signed proofs');
      return auth.authenticateRequest(r);
    },
  ]);
  return { us };
}

/**
 * Run the benchmark and return its markdown section.
 *
 * @example
 * ```ts
 * console.log(await run());
 * ```
 */
export async function run(): Promise<string> {
  const title = "## This release's features on the hot path (issue 33, goal 5)";
  const url = process.env.DATABASE_URL;
  if (!url) return `${title}\n\nSkipped: set \`DATABASE_URL\` (e.g. \`postgres://postgres@127.0.0.1:5432/test\`) to run it.\n`;
  const pair = generateKeyPairSync('ed25519');
  const jwk = pair.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  const signer = new ProofSigner({ pkcs8: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), jwk }, URL_);
  const keys: KeyRing = await generateKeyRing();
  const members = { rolesOf: () => ({ orgs: { acme: 'owner' as const, free: 'owner' as const } }) };

  const memory = createAuth({ issuer: 'https://svc.bench', keys, members, tokens: new MemoryTokenStore() });
  const mem = await measure(memory, await tokensOf(memory, jwk), signer);

  const { pool, sent } = countedPool(url, 16);
  const table = `svc_tokens_features_${randomBytes(4).toString('hex')}`;
  try {
    const store = new PostgresTokenStore({ pool, table });
    await store.migrate();
    const auth = createAuth({ issuer: 'https://svc.bench', keys, members, tokens: store });
    const kinds = await tokensOf(auth, jwk);
    const pgm = await measure(auth, kinds, signer);
    const counts = [];
    for (const k of [kinds.person, kinds.account, kinds.governed]) {
      sent.count = 0;
      for (let i = 0; i < COUNTED; i++) await auth.authenticate(k[i % k.length] as string);
      counts.push(sent.count / COUNTED);
    }
    // The record read alone and one claim alone (a fresh key each time, a durable write): a bound request
    // sends both at once, so it should wait for the longer, not for both.
    const ids = await Promise.all(kinds.person.map(async (t) => (await auth.authenticate(t)).tokenId as string));
    const claimOne = (): Promise<boolean> =>
      store.claimProof(randomBytes(12).toString('base64url'), new Date(Date.now() + 300_000), new Date());
    const [rtt, read, claim, both] = (await rounds([
      () => pool.query('SELECT 1'),
      (i) => store.readChain(ids[i % ids.length] as string),
      claimOne,
      (i) => Promise.all([claimOne(), store.readChain(ids[i % ids.length] as string)]),
    ])) as [number, number, number, number];
    const inflight: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const a = await rate((i) => auth.authenticate(kinds.person[i % DISTINCT] as string), IN_FLIGHT, ROUND_MS);
      const b = await rate((i) => auth.authenticate(kinds.governed[i % DISTINCT] as string), IN_FLIGHT, ROUND_MS);
      inflight.push(b / a);
    }
    const [pPerson, pAccount, pGoverned, pBound] = pgm.us as [number, number, number, number];
    const [mPerson, mAccount, mGoverned, mBound] = mem.us as [number, number, number, number];
    const check = mBound - mPerson;
    // Overlapped: a person's request, the proof's check, and what the claim sent beside the read adds to it
    // (its wait beyond the read, and its own statement's client CPU).
    const overlapped = pPerson + check + (both - read);
    const extraTrips = (pBound - overlapped) / rtt;
    figure('features.memory.account.ratio', mAccount / mPerson);
    figure('features.memory.policy.ratio', mGoverned / mPerson);
    figure('features.postgres.statements.person', counts[0] as number);
    figure('features.postgres.statements.account', counts[1] as number);
    figure('features.postgres.statements.policy', counts[2] as number);
    figure('features.postgres.account.ratio', pAccount / pPerson);
    figure('features.postgres.inflight.policy.ratio', median(inflight));
    figure('features.postgres.dpop.extraRoundTrips', extraTrips);
    const f = (n: number): string => n.toFixed(1);
    return [
      title,
      '',
      `alice's PATs on an org without a policy (the baseline), a service account's PATs on that org, alice's PATs on an org`,
      `with a policy (\`maxLifetime\`, which they keep), and key-bound PATs with a fresh DPoP proof each; ${DISTINCT} hot tokens of`,
      `each, \`authenticateRequest\` one at a time, the kinds timed back to back in ${ROUNDS} rounds of ${ROUND_MS} ms (medians).`,
      `PostgreSQL: a pool of 16 to a local server; statements counted over ${COUNTED} calls; ${IN_FLIGHT} in flight, governed against`,
      'the baseline, back to back per round.',
      '',
      '| token | memory store, µs per call | vs a person’s PAT | PostgreSQL, µs per call | vs a person’s PAT | statements per `authenticate` |',
      '|---|---:|---:|---:|---:|---:|',
      `| a person's PAT | ${f(mPerson)} | 1.00x | ${f(pPerson)} | 1.00x | ${counts[0]} |`,
      `| a service account's PAT | ${f(mAccount)} | ${(mAccount / mPerson).toFixed(2)}x | ${f(pAccount)} | ${(pAccount / pPerson).toFixed(2)}x | ${counts[1]} |`,
      `| a PAT of an org with a policy | ${f(mGoverned)} | ${(mGoverned / mPerson).toFixed(2)}x | ${f(pGoverned)} | ${(pGoverned / pPerson).toFixed(2)}x | ${counts[2]} |`,
      `| a key-bound PAT with its DPoP proof | ${f(mBound)} | ${(mBound / mPerson).toFixed(2)}x | ${f(pBound)} | ${(pBound / pPerson).toFixed(2)}x | two, sent together |`,
      '',
      `- ${IN_FLIGHT} in flight on PostgreSQL, PATs of the org with a policy against the baseline: **${median(inflight).toFixed(2)}x** the throughput (goal: at least 0.95x).`,
      `- One \`SELECT 1\` through the same pool: ${f(rtt)} µs. The store's read of a known record alone: ${f(read)} µs; one replay claim`,
      `  alone (an \`INSERT\` committed, so written to disk): ${f(claim)} µs; both sent together: ${f(both)} µs (the longer wait, and two`,
      `  statements' client CPU). A bound PAT should take a person's ${f(pPerson)} µs, plus the proof's check (${f(check)} µs, what it adds`,
      `  on the memory store), plus what the claim adds beside the read (${f(both - read)} µs): ${f(overlapped)} µs. It took ${f(pBound)} µs:`,
      `  **${extraTrips.toFixed(2)}** round trips beyond (0 or less: no extra wait; one after the other it would be about ${f(pPerson + check + claim)} µs).`,
      '',
    ].join('\n');
  } finally {
    await pool.query(`DROP TABLE IF EXISTS "${table}" CASCADE`).catch(() => undefined);
    for (const suffix of ['_org_policies', '_governance', '_dpop_proofs', '_service_accounts', '_machine_clients']) {
      await pool.query(`DROP TABLE IF EXISTS "${table}${suffix}"`).catch(() => undefined);
    }
    await pool.end();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(await run());
}
