/**
 * Policy decisions: our `authorize` against a hand-written floor, CASL and
 * casbin, on one rule set and a fixed query mix. Every engine must give the
 * same allow/deny answer on every query before anything is timed.
 *
 * Encoding for the other engines (their best case): the role cap and both
 * scope layers are first folded into an effective rule list per resource and
 * permission (`effectiveRules` below), so CASL and casbin only look rules up;
 * they do not redo the layering. Thing-name restrictions (one pattern list
 * per restricting layer, all must match) become:
 * - floor: one precompiled RegExp per (resource, permission), a lookahead per layer;
 * - CASL: `createMongoAbility` rules on subject types `Repo`/`Org` with
 *   conditions `{ key }` (a named repo) or `{ org }` (other repos of a known
 *   org), the same RegExp as a `$regex` condition on `thing` (`''` when no thing
 *   is given); named repos get a `cannot` rule before their `can` rules so that
 *   the org-wide rule does not leak into them (later CASL rules win);
 * - casbin: `newEnforcer` with a model string and a policy string, effect
 *   `priority(p.eft) || deny`, `keyMatch` for `org/*` rows, `globMatch` for
 *   each layer's patterns (one row per combination), a deny row closing each
 *   named repo. `enforceSync` per query.
 *
 *   npx tsx bench/policy.bench.ts
 */
import { Bench } from 'tinybench';
import micromatch from 'micromatch';
import { createMongoAbility, type MongoAbility } from '@casl/ability';
import { newEnforcer, newModelFromString, StringAdapter, type Enforcer } from 'casbin';
import { authorize, createGrant, compileLayer } from '../src/core/policy';
import { PERMISSIONS, ROLE_TABLE, type Permission, type RoleName } from '../src/core/vocabulary';
import type { Scope } from '../src/core/scopes/types';
import type { UserRoles } from '../src/core/policy/types';
import { interleaved, QUICK } from './report';

const ROLES: UserRoles = {
  orgs: { acme: 'admin', beta: 'editor', gamma: 'viewer' },
  repos: { 'delta/infra': 'admin', 'delta/docs': 'viewer' },
};
const OWN: Scope[] = [
  { resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**', 'Img/*.png'] },
  { resource: 'acme/web', permissions: ['repo:configure'] },
  { resource: 'acme', permissions: ['repo:read', 'org:read'] },
  { resource: 'beta', permissions: ['repo:read', 'repo:write'] },
  { resource: 'delta/infra', permissions: ['repo:read', 'repo:admin'] },
  { permissions: ['repo:read'] },
];
const PARENT: Scope[] = [
  { resource: 'acme', permissions: ['repo:read', 'repo:write', 'repo:configure', 'org:read'] },
  { resource: 'acme/web', permissions: ['repo:read', 'repo:write', 'repo:configure'], allowedMatches: ['Doc/*', 'Img/**'] },
  { resource: 'beta', permissions: ['repo:read'] },
  { permissions: ['repo:read', 'repo:admin', 'org:read'] },
];
const LAYERS = [OWN, PARENT];

type Query = readonly [resource: string, permission: string, thing?: string];
const QUERIES: readonly Query[] = [
  ['acme/web', 'repo:read', 'Doc/readme'],
  ['acme/web', 'repo:write', 'Doc/a/b'],
  ['acme/web', 'repo:write', 'Img/logo.png'],
  ['acme/web', 'repo:read'],
  ['acme/web', 'repo:configure', 'Doc/x'],
  ['acme/web', 'repo:admin'],
  ['acme/api', 'repo:read'],
  ['acme/api', 'repo:write', 'Doc/x'],
  ['acme', 'org:read'],
  ['acme', 'org:admin'],
  ['beta/site', 'repo:write'],
  ['beta/site', 'repo:read', 'Src/main'],
  ['gamma/x', 'repo:write'],
  ['delta/infra', 'repo:admin'],
  ['delta/docs', 'repo:read'],
  ['zeta/web', 'repo:read'],
  ['Acme/Web', 'repo:read', 'Doc/readme'],
];

// ---------------------------------------------------------------------------
// The rule set folded into effective rules, written plainly from A3-A5.

/** Per resource row and permission: null = denied; [] = allowed for any thing; else pattern lists, all must match. */
type Effective = Map<string, Map<Permission, string[][] | null>>;

function effectiveRules(roles: UserRoles, layers: Scope[][]): { rows: Effective; orgs: string[]; repos: string[] } {
  const orgs = new Set<string>(Object.keys(roles.orgs ?? {}));
  const repos = new Set<string>(Object.keys(roles.repos ?? {}));
  for (const l of layers) for (const e of l) if (e.resource) (e.resource.includes('/') ? repos : orgs).add(e.resource);
  for (const r of repos) orgs.add(r.split('/')[0] as string);
  const rows: Effective = new Map();
  const decide = (row: string, org: string, repo: string | null) => {
    const perms = new Map<Permission, string[][] | null>();
    for (const p of PERMISSIONS) {
      const onRepo = p.startsWith('repo:');
      if (onRepo !== (repo !== null || row.endsWith('/*'))) continue;
      const orgRole = roles.orgs?.[org] as RoleName | undefined;
      const repoRole = repo === null ? undefined : (roles.repos?.[repo] as RoleName | undefined);
      const held = onRepo
        ? [...(orgRole ? ROLE_TABLE[orgRole].repo : []), ...(repoRole ? ROLE_TABLE[repoRole].repo : [])]
        : orgRole
          ? ROLE_TABLE[orgRole].org
          : [];
      let result: string[][] | null = held.includes(p) ? [] : null;
      for (const l of layers) {
        if (result === null) break;
        let tier = repo === null ? [] : l.filter((e) => e.resource === repo);
        if (tier.length === 0) tier = l.filter((e) => e.resource === org);
        if (tier.length === 0) tier = l.filter((e) => e.resource === undefined);
        const entry = tier.find((e) => e.permissions.includes(p));
        if (!entry) result = null;
        else if (entry.allowedMatches) result = entry.allowedMatches.length === 0 ? null : [...result, [...entry.allowedMatches]];
      }
      perms.set(p, result);
    }
    rows.set(row, perms);
  };
  for (const o of orgs) {
    decide(o, o, null);
    decide(`${o}/*`, o, null);
  }
  for (const r of repos) decide(r, r.split('/')[0] as string, r);
  return { rows, orgs: [...orgs], repos: [...repos] };
}

/** A RegExp accepting '' (no thing) or a thing matching one pattern of every list. */
function thingRegExp(lists: string[][]): RegExp {
  const look = lists.map((ps) => `(?=${ps.map((p) => micromatch.makeRe(p, { dot: true }).source).join('|')})`).join('');
  return new RegExp(`^(?:$|${look})`);
}

// ---------------------------------------------------------------------------
// Engines. Each answers a query with a boolean.

type Engine = (resource: string, permission: string, thing: string | undefined) => boolean;

function buildOurs(): Engine {
  const grant = createGrant({ roles: ROLES, layers: LAYERS.map((l) => compileLayer(l)) });
  return (r, p, t) => authorize(grant, r, p, t).allowed;
}

function buildFloor(eff: Effective): Engine {
  interface Row {
    mask: number;
    re: (RegExp | null)[];
  }
  const table = new Map<string, Row>();
  for (const [key, perms] of eff) {
    const row: Row = { mask: 0, re: PERMISSIONS.map(() => null) };
    PERMISSIONS.forEach((p, i) => {
      const lists = perms.get(p);
      if (lists === null || lists === undefined) return;
      row.mask |= 1 << i;
      if (lists.length > 0) row.re[i] = thingRegExp(lists);
    });
    table.set(key, row);
  }
  const index = new Map(PERMISSIONS.map((p, i) => [p as string, i]));
  return (r, p, t) => {
    let row = table.get(r);
    if (row === undefined) {
      const k = r.toLowerCase();
      const slash = k.indexOf('/');
      row = table.get(k) ?? table.get(slash < 0 ? k : `${k.slice(0, slash)}/*`);
      if (row === undefined) return false;
    }
    const i = index.get(p);
    if (i === undefined || (row.mask & (1 << i)) === 0) return false;
    const re = row.re[i];
    return t === undefined || re === null || re === undefined || re.test(t);
  };
}

function buildCasl(eff: Effective, repos: string[]): Engine {
  const rules: { action: string; subject: string; conditions?: object; inverted?: boolean }[] = [];
  const add = (key: string, perms: Map<Permission, string[][] | null>) => {
    const isOrg = !key.includes('/');
    const base = isOrg ? { key } : key.endsWith('/*') ? { org: key.slice(0, -2) } : { key };
    for (const [p, lists] of perms) {
      if (lists === null) continue;
      const conditions = lists.length === 0 ? base : { ...base, thing: { $regex: thingRegExp(lists) } };
      rules.push({ action: p, subject: isOrg ? 'Org' : 'Repo', conditions });
    }
  };
  for (const [key, perms] of eff) if (key.endsWith('/*') || !key.includes('/')) add(key, perms);
  for (const key of repos) {
    for (const p of PERMISSIONS.slice(0, 4)) rules.push({ action: p, subject: 'Repo', conditions: { key }, inverted: true });
    add(key, eff.get(key) as Map<Permission, string[][] | null>);
  }
  const ability: MongoAbility = createMongoAbility(rules as never, { detectSubjectType: (o: { type: string }) => o.type } as never);
  return (r, p, t) => {
    const key = r.toLowerCase();
    const slash = key.indexOf('/');
    const subj = slash < 0 ? { type: 'Org', key } : { type: 'Repo', key, org: key.slice(0, slash), thing: t ?? '' };
    return ability.can(p, subj as never);
  };
}

async function buildCasbin(eff: Effective, repos: string[]): Promise<Engine> {
  const model = newModelFromString(`
[request_definition]
r = res, act, thing
[policy_definition]
p = res, act, t1, t2, eft
[policy_effect]
e = priority(p.eft) || deny
[matchers]
m = keyMatch(r.res, p.res) && r.act == p.act && (p.t1 == "*" || r.thing == "" || globMatch(r.thing, p.t1)) && (p.t2 == "*" || r.thing == "" || globMatch(r.thing, p.t2))
`);
  const lines: string[] = [];
  const add = (key: string, perms: Map<Permission, string[][] | null>) => {
    for (const [p, lists] of perms) {
      if (lists === null) continue;
      const [a = ['*'], b = ['*']] = lists;
      if (lists.length > 2) throw new Error('the casbin model holds two restricting layers');
      for (const x of a) for (const y of b) lines.push(`p, ${key}, ${p}, ${x}, ${y}, allow`);
    }
  };
  for (const key of repos) {
    add(key, eff.get(key) as Map<Permission, string[][] | null>);
    lines.push(...PERMISSIONS.slice(0, 4).map((p) => `p, ${key}, ${p}, *, *, deny`));
  }
  for (const [key, perms] of eff) if (!repos.includes(key)) add(key, perms);
  const e: Enforcer = await newEnforcer(model, new StringAdapter(lines.join('\n')));
  return (r, p, t) => e.enforceSync(r.toLowerCase(), p, t ?? '');
}

// ---------------------------------------------------------------------------

const REPEAT = 64;

function loop(engine: Engine, queries: readonly Query[]): number {
  let allowed = 0;
  for (let k = 0; k < REPEAT; k++) {
    for (let i = 0; i < queries.length; i++) {
      const q = queries[i] as Query;
      if (engine(q[0], q[1], q[2])) allowed++;
    }
  }
  return allowed;
}

/** What building a decider costs: the service builds a grant on every `authenticate`. */
async function buildCosts(): Promise<string[]> {
  const compiled = LAYERS.map((l) => compileLayer(l));
  const { rows, repos } = effectiveRules(ROLES, LAYERS);
  let sink = 0;
  const bench = new Bench({ time: 500, warmupTime: 100 });
  bench
    .add('`createGrant` with layers compiled once per token (`compileLayer`)', () => {
      sink += createGrant({ roles: ROLES, layers: compiled }) ? 1 : 0;
    })
    .add('`createGrant` with raw scope layers', () => {
      sink += createGrant({ roles: ROLES, layers: LAYERS }) ? 1 : 0;
    })
    .add('`compileLayer` of the own layer (6 entries)', () => {
      sink += compileLayer(OWN) ? 1 : 0;
    })
    .add('CASL `createMongoAbility` from the folded rules', () => {
      sink += buildCasl(rows, repos) ? 1 : 0;
    });
  await bench.run();
  if (sink < 0) throw new Error('unreachable');
  return [
    'Building a decider (once per request when the service builds the grant at `authenticate`):',
    '',
    '| step | µs |',
    '|---|---:|',
    ...bench.tasks.map((t) => {
      const r = t.result;
      if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state}`);
      return `| ${t.name} | ${(r.latency.mean * 1000).toFixed(2)} |`;
    }),
    '',
  ];
}

/** Goal 4 of issue 12: at least 10x faster than CASL overall, at most 1.3x the floor with thing names. */
function goals(perOp: number[][]): string {
  const [floor, ours, casl] = perOp as [number[], number[], number[]];
  const vsCasl = (casl[0] as number) / (ours[0] as number);
  const vsFloor = (ours[2] as number) / (floor[2] as number);
  return [
    '| goal (issue 12) | measured | |',
    '|---|---:|---|',
    `| \`authorize\` at least 10x faster than CASL, all queries | ${vsCasl.toFixed(1)}x | ${vsCasl >= 10 ? 'met' : 'missed'} |`,
    `| \`authorize\` at most 1.3x the floor, with thing name | ${vsFloor.toFixed(2)}x | ${vsFloor <= 1.3 ? 'met' : 'missed'} |`,
  ].join('\n');
}

/** Measure every engine on the query mix; returns the markdown section. */
export async function run(): Promise<string> {
  const { rows, repos } = effectiveRules(ROLES, LAYERS);
  const engines: [string, Engine][] = [
    ['hand-written floor (Map + bitmask + RegExp)', buildFloor(rows)],
    ['svc-auth `authorize`', buildOurs()],
    ['@casl/ability `createMongoAbility().can`', buildCasl(rows, repos)],
    ['casbin `enforceSync`', await buildCasbin(rows, repos)],
  ];
  const ours = engines[1]?.[1] as Engine;
  const expected = QUERIES.map((q) => ours(q[0], q[1], q[2]));
  for (const [name, engine] of engines) {
    QUERIES.forEach((q, i) => {
      const got = engine(q[0], q[1], q[2]);
      if (got !== expected[i]) throw new Error(`${name} answers ${got} to ${JSON.stringify(q)}; svc-auth answers ${expected[i]}`);
    });
  }

  const mixes: [string, readonly Query[]][] = [
    ['all queries', QUERIES],
    ['without thing name', QUERIES.filter((q) => q[2] === undefined)],
    ['with thing name', QUERIES.filter((q) => q[2] !== undefined)],
  ];
  let sink = 0;
  // casbin is two orders of magnitude slower: it gets shorter turns (its figure is per decision all the same).
  const times = new Map<string, number>();
  for (const [mix, queries] of mixes) {
    const fast = engines.filter(([n]) => !n.startsWith('casbin'));
    const got = await interleaved(
      fast.map(([name, engine]) => ({
        name,
        fn: () => {
          sink += loop(engine, queries);
        },
        ops: REPEAT * queries.length,
      })),
    );
    for (const [name, ns] of got) times.set(`${name}|${mix}`, ns);
    const [cname, cengine] = engines[3] as [string, Engine];
    const c = await interleaved(
      [
        {
          name: cname,
          fn: () => {
            sink += loop(cengine, queries);
          },
          ops: REPEAT * queries.length,
        },
      ],
      2,
      QUICK ? 100 : 300,
    );
    times.set(`${cname}|${mix}`, c.get(cname) as number);
  }
  if (sink < 0) throw new Error('unreachable');

  // ns per decision, indexed [engine][mix].
  const perOp = engines.map(([name]) => mixes.map(([mix]) => times.get(`${name}|${mix}`) as number));
  const floor = perOp[0] as number[];
  const cell = (e: number, m: number) => {
    const v = (perOp[e] as number[])[m] as number;
    return `${v.toFixed(1)} (${(v / (floor[m] as number)).toFixed(2)}x)`;
  };
  const allowedCount = expected.filter(Boolean).length;
  const out = [
    '## Policy decisions (`authorize`)',
    '',
    `One user (org roles in 3 orgs, 2 repo roles), a PAT with 2 scope layers (own + parent, with \`allowedMatches\`), ` +
      `a fixed mix of ${QUERIES.length} queries (${allowedCount} allow, ${QUERIES.length - allowedCount} deny; ` +
      `${QUERIES.filter((q) => q[2] !== undefined).length} with a thing name, one mixed-case resource, unnamed repos of a known org). ` +
      'Every engine gave the same answer to every query before timing. CASL and casbin get rules already folded from ' +
      'the role cap and both layers (their best case); see the header of `bench/policy.bench.ts` for the encoding. ' +
      'The floor neither validates input nor guards against ReDoS (its RegExps come from `micromatch.makeRe`).',
    '',
    'Engines take turns (21 rounds of 120 ms, order rotating; `--quick`: 5 of 60 ms), each figure its best round (noise only adds time): ratios are measured in one run.',
    '',
    `| engine | ${mixes.map(([m, q]) => `${m} (${q.length}): ns/op (vs floor)`).join(' | ')} |`,
    `|---|${mixes.map(() => '---:').join('|')}|`,
    ...engines.map(([name], e) => `| ${name} | ${mixes.map((_, m) => cell(e, m)).join(' | ')} |`),
    '',
    goals(perOp),
    '',
    ...(await buildCosts()),
  ];
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${await run()}\n`);
}
