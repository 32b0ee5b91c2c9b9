/**
 * Goal 4 of issue 33 (one million token records in at most 250 MB) and the
 * cache floods of issue 13, measured as heap after forced GC (run with
 * `node --expose-gc`; without it the section says n/a).
 *
 * STORE: one million PAT records (1000 owners, one scope entry each) in a
 * `MemoryTokenStore`. FLOODS: through `auth.authenticate` of one `createAuth`
 * with the default cache bounds (10 000 verified signatures, 10 000 compiled
 * layers, 10 000 compiled grants), over that same store:
 *   1. distinct bogus strings (refused before any crypto);
 *   2. distinct valid-looking tokens: the real PAT header (kid included) and a
 *      well-formed body with a fresh jti, with a forged signature;
 *   3. distinct tokens signed by the ring for records that exist: each one
 *      passes and enters all three caches, which must stay at their bound.
 * The heap is read after GC at checkpoints: once the caches are full it must
 * stay flat. `--quick` uses smaller counts and says so.
 *
 *   node --expose-gc --import tsx bench/memory.bench.ts [--quick]
 */
import { pathToFileURL } from 'node:url';
import { base64url } from 'jose';
import { createAuth } from '../src/service/auth';
import { MemoryTokenStore } from '../src/stores/memory/store';
import type { TokenRecord } from '../src/stores/types';
import { generateKeyRing } from '../src/tokens/keys/keyring';
import { mintToken } from '../src/tokens/mint';
import { figure } from './results';

const QUICK = process.argv.includes('--quick');
const RECORDS = QUICK ? 200_000 : 1_000_000;
const BOGUS = QUICK ? 200_000 : 1_000_000;
const LOOKALIKE = QUICK ? 20_000 : 100_000;
const SIGNED = QUICK ? 30_000 : 200_000;
const CHECKPOINTS = 5;
const ISS = 'https://svc.bench';
const ROLES = { orgs: { acme: 'editor' as const } };
const MB = 2 ** 20;

const gcOf = (): (() => void) | undefined => (globalThis as { gc?: () => void }).gc;
function heap(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * A flat copy of `s`, as a string read from JSON or a socket is. A template
 * literal makes a rope (a cons string), which costs some 30 bytes more per
 * string than the names and ids a store is really given.
 */
const flat = (s: string): string => JSON.parse(JSON.stringify(s)) as string;
/** Record ids as long as real ones (22 base64url characters), derived from `i`, so nothing else holds them. */
const idOf = (i: number): string => flat(`tok${i.toString(36).padStart(19, '0')}`);

interface Flood {
  what: string;
  count: number;
  /** Heap after GC at each checkpoint, minus the heap before the flood. */
  growth: number[];
  accepted: number;
}

async function flood(what: string, count: number, gc: () => void, one: (i: number) => Promise<boolean>): Promise<Flood> {
  const before = heap(gc);
  const growth: number[] = [];
  let accepted = 0;
  const step = count / CHECKPOINTS;
  for (let i = 0; i < count; i++) {
    if (await one(i)) accepted++;
    if ((i + 1) % step === 0) growth.push(heap(gc) - before);
  }
  return { what, count, growth, accepted };
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
  const gc = gcOf();
  if (gc === undefined) return '## Memory: a million tokens\n\nn/a: run with `node --expose-gc --import tsx bench/memory.bench.ts`.\n';
  const ring = await generateKeyRing({ alg: 'HS256' });
  const nowMs = Math.floor(Date.now() / 1000) * 1000;
  const now = new Date(nowMs);
  const later = new Date(nowMs + 30 * 86_400_000);
  const scopes = [{ resource: 'acme/web', permissions: ['repo:read' as const] }];

  const base = heap(gc);
  const store = new MemoryTokenStore();
  for (let i = 0; i < RECORDS; i++) {
    const rec: TokenRecord = {
      id: idOf(i),
      kind: 'pat',
      ownerId: `user-${i % 1000}`,
      name: flat(`token-${i}`),
      description: null,
      scopes,
      parentId: null,
      createdAt: now,
      expiresAt: later,
      revokedAt: null,
      committerIdentity: null,
    };
    await store.insert(rec, now);
  }
  const storeBytes = heap(gc) - base;
  if (store.size !== RECORDS) throw new Error('store lost records');

  const auth = createAuth({ issuer: ISS, keys: ring, tokens: store, members: { rolesOf: () => ROLES } });
  const refused = async (t: string): Promise<boolean> => {
    try {
      await auth.authenticate(t);
      return true;
    } catch {
      return false;
    }
  };
  const claimsOf = (i: number) => ({
    kind: 'pat' as const,
    iss: ISS,
    sub: `user-${i % 1000}`,
    jti: idOf(i),
    iat: nowMs / 1000,
    exp: later.getTime() / 1000,
  });
  const sample = await mintToken(ring, claimsOf(0));
  const head = sample.slice(0, sample.indexOf('.'));
  const fake = (i: number): string => `${base64url.encode(`{"x":${i}}`)}.${i.toString(36)}.${(i * 7919).toString(36)}`;
  const lookalike = (i: number): string =>
    `${head}.${base64url.encode(JSON.stringify({ ...claimsOf(i), jti: `zz${i.toString(36).padStart(20, '0')}` }))}.${base64url.encode(`forged-${i}`.padEnd(32, '.'))}`;

  const floods: Flood[] = [];
  floods.push(await flood('distinct bogus strings', BOGUS, gc, (i) => refused(fake(i))));
  floods.push(
    await flood('distinct valid-looking tokens (real header and kid, forged signature)', LOOKALIKE, gc, (i) => refused(lookalike(i))),
  );
  floods.push(
    await flood('distinct tokens signed by the ring, each with its record (all three caches fill)', SIGNED, gc, async (i) =>
      refused(await mintToken(ring, claimsOf(i))),
    ),
  );
  for (const f of floods.slice(0, 2)) if (f.accepted !== 0) throw new Error(`${f.what}: ${f.accepted} accepted`);
  const signed = floods[2] as Flood;
  if (signed.accepted !== SIGNED) throw new Error(`signed flood: only ${signed.accepted} of ${SIGNED} accepted`);

  const mb = (b: number): string => `${(b / MB).toFixed(1)} MB`;
  const perMillion = (storeBytes / RECORDS) * 1_000_000;
  figure('memory.records', RECORDS);
  figure('memory.mbPerMillion', perMillion / MB);
  return [
    '## Memory: a million tokens, and cache floods',
    '',
    `Heap after two forced GCs (\`node --expose-gc\`)${QUICK ? '; `--quick` counts (the full run uses one million records and one million bogus tokens)' : ''}.`,
    '',
    `| what | heap | bytes each | goal |`,
    '|---|---:|---:|---|',
    `| ${RECORDS.toLocaleString('en')} PAT records in \`MemoryTokenStore\` (1000 owners, one scope entry each) | ${mb(storeBytes)} | ${Math.round(storeBytes / RECORDS)} | ${QUICK ? `${mb(perMillion)} per million (extrapolated); ` : ''}at most 250 MB per million (issue 33, goal 4): ${perMillion <= 250 * MB ? 'met' : 'missed'} |`,
    '',
    `Ids are 22 characters and names like \`token-123456\`, flat strings as read from JSON. The user ids come from 1000 owners.`,
    'A record is kept as a compact row: whole-second times as small integers inside the row, the kind and the fields',
    'most records leave empty in one object shared by every row that leaves them empty (src/stores/row.ts).',
    '',
    'Floods through `auth.authenticate` over that store, default bounds (10 000 signatures, 10 000 compiled layers,',
    `10 000 compiled grants). Heap growth over the heap before the flood, after GC, at ${CHECKPOINTS} evenly spaced checkpoints:`,
    '',
    `| flood | tokens | accepted | ${Array.from({ length: CHECKPOINTS }, (_, k) => `after ${(((k + 1) / CHECKPOINTS) * 100).toFixed(0)}%`).join(' | ')} | last − first checkpoint |`,
    `|---|---:|---:|${'---:|'.repeat(CHECKPOINTS)}---:|`,
    ...floods.map(
      (f) =>
        `| ${f.what} | ${f.count.toLocaleString('en')} | ${f.accepted.toLocaleString('en')} | ${f.growth.map(mb).join(' | ')} | ${mb((f.growth.at(-1) as number) - (f.growth[0] as number))} |`,
    ),
    '',
    'Refused tokens never enter a cache (only a verified signature is remembered, T2); accepted ones fill the three',
    'caches to their bound within the first checkpoint. The bounds are one option (`cache: { signatures, layers, grants }`,',
    'each 0 to 1 000 000) checked when `createAuth` builds. The last-used recorder remembers the',
    'time it last recorded for at most 100 000 token ids (about 60 bytes each): in the signed flood that bound is',
    'reached at the 100 000th token, between the 40% and 80% checkpoints, and the heap is flat after it.',
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await run());
}
