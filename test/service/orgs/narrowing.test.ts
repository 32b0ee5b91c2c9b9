/**
 * Issue 30's narrowing-only property: no sequence of token creations
 * (children included), approvals, denials, org revocations and policy changes
 * lets `authorize` allow a PAT in an org whose policy, as a simple model here
 * reads it, refuses that token. The same sequence runs against an `Auth` with
 * its grant and layer caches off, on the same store: the cached decisions must
 * equal the uncached ones after every step (a changed policy, access entry or
 * chain never reuses a grant built for other gates).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors';
import type { Auth } from 'svc-auth';
import { MemoryTokenStore } from '../../../src/stores';
import { testAuth } from '../../support/auth';
import { Clock } from '../../support/clock';

const ROLES = { alice: { orgs: { acme: 'owner' as const } }, bob: { orgs: { acme: 'editor' as const } } };
type Kind = 'acme' | 'global' | 'full' | 'inherit';
type Own = 'none' | 'approved' | 'denied' | 'revoked';
interface Tok {
  id: string;
  token: string;
  parent: number | null;
  kind: Kind;
  days: number;
  ips: boolean;
  own: Own;
}
interface Policy {
  maxDays: number | null;
  approval: boolean;
  allowGlobal: boolean;
  ips: boolean;
}

const policyArb = fc.record({
  maxDays: fc.constantFrom(null, 30, 100),
  approval: fc.boolean(),
  allowGlobal: fc.boolean(),
  ips: fc.boolean(),
});
const op = fc.oneof(
  fc.record({ op: fc.constant('policy' as const), policy: policyArb }),
  fc.record({
    op: fc.constant('create' as const),
    kind: fc.constantFrom<Kind>('acme', 'global', 'full'),
    days: fc.constantFrom(7, 60, 365),
    ips: fc.boolean(),
  }),
  fc.record({
    op: fc.constant('child' as const),
    of: fc.nat(),
    kind: fc.constantFrom<Kind>('acme', 'inherit'),
    days: fc.constantFrom(7, 60, 365),
  }),
  fc.record({ op: fc.constantFrom('approve' as const, 'deny' as const, 'revoke' as const), of: fc.nat() }),
);

function chainOf(toks: readonly Tok[], i: number): Tok[] {
  const out: Tok[] = [];
  for (let at: number | null = i; at !== null; at = (toks[at] as Tok).parent) out.push(toks[at] as Tok);
  return out;
}

/** Does the policy, as this model reads it, let token `i` into acme? */
function modelAllows(p: Policy, toks: readonly Tok[], i: number): boolean {
  const chain = chainOf(toks, i);
  if (chain.some((t) => t.own === 'denied' || t.own === 'revoked')) return false;
  if (p.maxDays !== null && chain.some((t) => t.days > p.maxDays!)) return false;
  if (p.ips && !chain.some((t) => t.ips)) return false;
  if (p.approval && chain.find((t) => t.own !== 'none')?.own !== 'approved') return false;
  if (!p.allowGlobal) {
    const scoped = chain.filter((t) => t.kind !== 'inherit' && t.kind !== 'full');
    if (scoped.length === 0 || scoped.some((t) => t.kind !== 'acme')) return false;
  }
  return true;
}

const SCOPES: Record<Kind, { resource?: string; permissions: string[] }[] | undefined> = {
  acme: [{ resource: 'acme/web', permissions: ['repo:read'] }],
  global: [{ permissions: ['repo:read'] }],
  full: undefined,
  inherit: undefined,
};

async function decide(auth: Auth, t: Tok): Promise<unknown> {
  return auth.authorize(await auth.authenticate(t.token, { address: '10.0.0.1' }), 'acme/web', 'repo:read');
}

describe('org policies only narrow (fast-check)', () => {
  it('no sequence of create, approve, deny, revoke and policy changes lets a token into an org its policy refuses; caches change no decision', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const store = new MemoryTokenStore();
        const clock = new Clock();
        const cached = (await testAuth({ roles: ROLES, tokens: store, clock, onEvent: undefined })).auth;
        const uncached = (await testAuth({ roles: ROLES, tokens: store, clock, onEvent: undefined, cache: { grants: 0, layers: 0 } })).auth;
        const alice = await cached.authenticate(await cached.issueSession('alice'));
        const bob = await cached.authenticate(await cached.issueSession('bob'));
        const acme = cached.client(alice).org('acme');
        let policy: Policy = { maxDays: null, approval: false, allowGlobal: true, ips: false };
        const toks: Tok[] = [];
        for (const o of ops) {
          if (o.op === 'policy') {
            await acme.policy.set({
              maxLifetime: o.policy.maxDays,
              requireApproval: o.policy.approval,
              allowGlobal: o.policy.allowGlobal,
              requireAllowedIps: o.policy.ips,
            });
            policy = o.policy;
          } else if (o.op === 'create' || o.op === 'child') {
            const parent = o.op === 'child' && toks.length > 0 ? o.of % toks.length : null;
            if (o.op === 'child' && parent === null) continue;
            const creator = parent === null ? bob : await cached.authenticate((toks[parent] as Tok).token, { address: '10.0.0.1' });
            const ips = o.op === 'create' && o.ips;
            try {
              const scopes = SCOPES[o.kind];
              const { token, info } = await cached.client(creator).token.create({
                name: `t${toks.length}`,
                expiresIn: `${o.days}d`,
                ...(scopes === undefined ? {} : { scopes }),
                ...(ips ? { allowedIps: ['10.0.0.0/8'] } : {}),
              });
              const days = parent === null ? o.days : Math.min(o.days, (toks[parent] as Tok).days);
              toks.push({ id: info.id, token, parent, kind: o.kind, days, ips, own: 'none' });
            } catch (err) {
              // A policy may refuse the creation itself (G2): nothing was made.
              if (!(err instanceof ValidationError)) throw err;
            }
          } else if (toks.length > 0) {
            const t = toks[o.of % toks.length] as Tok;
            if (o.op === 'approve') {
              if ((await acme.requests.approve([t.id])).length > 0) t.own = 'approved';
            } else if (o.op === 'deny') {
              if ((await acme.requests.deny([t.id])).length > 0) t.own = 'denied';
            } else if ((await acme.tokens.revoke([t.id])).length > 0) t.own = 'revoked';
          }
          for (let i = 0; i < toks.length; i++) {
            const t = toks[i] as Tok;
            const d = await decide(cached, t);
            expect(await decide(uncached, t)).toEqual(d);
            if ((d as { allowed: boolean }).allowed) expect(modelAllows(policy, toks, i)).toBe(true);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});
