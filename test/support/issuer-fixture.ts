/**
 * Set-up shared by the hostile trusted-issuer tests: a key server (a real node:http
 * IdP on loopback) and an Auth trusting it, on the pinned clock.
 */
import { expect } from 'vitest';
import { AuthenticationError, UnavailableError } from '../../src/errors';
import type { Auth, AuthOptions } from '../../src/service';
import type { UserRoles } from '../../src/core/policy';
import type { TrustedIssuer } from '../../src/tokens';
import { userIdPrefixOf } from './issuer-user-id';
import { testAuth } from './auth';
import { Clock, NOW_SEC } from './clock';
import { rejection } from './errors';
import { startKeyServer, type KeyServer, type SigningKey } from './key-server';

export const AUDIENCE = 'https://api.svc.test';

export interface IssuerSetup {
  ks: KeyServer & { first: SigningKey };
  auth: Auth;
  clock: Clock;
  /** Roles by the token's `sub` (the Auth's members read them under the user id derived from it). */
  roles: Map<string, UserRoles>;
  /** The user id a token of this issuer with `sub` stands for (T10: derived from the issuer and the claim). */
  user(sub: string): string;
  /** Claims of a good token for `alice`, valid for 5 minutes from the pinned clock. */
  claims(extra?: Record<string, unknown>): Record<string, unknown>;
}

/** A key server and an Auth that trusts it (discovery unless `issuer` overrides). */
export async function issuerSetup(issuer: Partial<TrustedIssuer> = {}, extra: Partial<AuthOptions> = {}): Promise<IssuerSetup> {
  const ks = await startKeyServer();
  const clock = new Clock();
  const roles = new Map<string, UserRoles>([['alice', { orgs: { acme: 'editor' } }]]);
  const prefix = userIdPrefixOf(ks.issuer);
  const { auth } = await testAuth({
    clock,
    members: { rolesOf: (u) => roles.get(u.startsWith(prefix) ? u.slice(prefix.length) : u) ?? {} },
    trustedIssuers: [{ issuer: ks.issuer, audience: AUDIENCE, ...issuer }],
    ...extra,
  });
  const claims = (more: Record<string, unknown> = {}): Record<string, unknown> => ({
    iss: ks.issuer,
    aud: AUDIENCE,
    sub: 'alice',
    iat: NOW_SEC,
    exp: NOW_SEC + 300,
    ...more,
  });
  return { ks, auth, clock, roles, claims, user: (sub) => `${prefix}${sub}` };
}

/** The reason `auth.authenticate(token)` is refused with (fails unless it is an AuthenticationError). */
export async function reasonOf(auth: Auth, token: string): Promise<string> {
  const err = await rejection(auth.authenticate(token));
  expect(err).toBeInstanceOf(AuthenticationError);
  return (err as AuthenticationError).reason;
}

/** Asserts `auth.authenticate(token)` fails closed as unavailable (503), never an allow. */
export async function expectUnavailable(auth: Auth, token: string): Promise<void> {
  expect(await rejection(auth.authenticate(token))).toBeInstanceOf(UnavailableError);
}
