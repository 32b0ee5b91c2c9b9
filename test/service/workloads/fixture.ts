/**
 * A GitHub-Actions-shaped workload issuer for the exchange tests: the loopback key server
 * (discovery + JWKS over node:http) signing tokens with the claims GitHub writes, and an
 * `Auth` trusting it with one rule for `acme/ci-bot`.
 */
import { randomBytes } from 'node:crypto';
import { createAuth, type Auth } from '../../../src/service';
import { MemoryTokenStore, type ServiceAccountRecord, type TokenStore } from '../../../src/stores';
import type { KeyRing } from '../../../src/tokens';
import type { UserRoles } from '../../../src/core/policy';
import type { AuthEvent } from '../../../src/service';
import type { KeyServer, SigningKey } from '../../support/key-server';
import { NOW } from '../../support/clock';

export const AUDIENCE = 'https://svc.test';

/** What GitHub Actions puts in a job's OIDC token (a subset, the ones rules match on). */
export function githubClaims(issuer: string, nowSec: number, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: issuer,
    aud: AUDIENCE,
    sub: 'repo:acme/api:ref:refs/heads/main',
    repository: 'acme/api',
    repository_owner: 'acme',
    ref: 'refs/heads/main',
    sha: 'a'.repeat(40),
    workflow: 'deploy',
    actor: 'alice',
    run_id: '4242',
    jti: randomBytes(16).toString('hex'),
    iat: nowSec,
    nbf: nowSec,
    exp: nowSec + 300,
    ...more,
  };
}

export function accountRecord(more: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord {
  return {
    org: 'acme',
    name: 'ci-bot',
    role: 'editor',
    description: null,
    disabled: false,
    clients: [],
    createdBy: 'alice',
    createdAt: NOW,
    updatedBy: 'alice',
    updatedAt: NOW,
    version: 1,
    ...more,
  };
}

export interface Setup {
  idp: KeyServer & { first: SigningKey };
  keys: KeyRing;
  now: () => Date;
  store?: TokenStore;
  events?: AuthEvent[];
  rules?: unknown[];
  roles?: (userId: string) => UserRoles;
}

/** An Auth trusting `idp` as a workload issuer; by default one rule: acme/api on main -> acme/ci-bot, repo:write on acme/api. */
export function workloadAuth(s: Setup): Auth {
  return createAuth({
    issuer: 'https://svc.test',
    keys: s.keys,
    now: s.now,
    tokens: s.store ?? new MemoryTokenStore(),
    members: { rolesOf: s.roles ?? (() => ({})) },
    ...(s.events === undefined ? {} : { onEvent: (e: AuthEvent) => void s.events?.push(e) }),
    trustedWorkloads: [
      {
        issuer: s.idp.issuer,
        audience: AUDIENCE,
        rules: (s.rules ?? [
          {
            claims: { repository: 'acme/api', ref: 'refs/heads/main' },
            serviceAccount: 'acme/ci-bot',
            scopes: ['acme/api=repo:read,repo:write'],
          },
        ]) as never,
      },
    ],
  });
}
