/**
 * One small world for the framework examples and adapter tests: a real
 * `createAuth` over memory stores, users with roles, and tokens of each kind
 * of outcome (allowed, scope, role and thing denials, revoked).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAuth, generateKeyRing, MemoryTokenStore, type Auth, type UserRoles } from 'svc-auth';

export interface World {
  auth: Auth;
  /** Session of alice, editor in org acme. */
  alice: string;
  /** Session of bob, viewer in org acme: writes are denied by role. */
  bob: string;
  /** Session of mallory, editor in an org named `web` only (the mounted-router defect). */
  mallory: string;
  /** alice's PAT `reader`: acme/web=repo:read. */
  reader: string;
  /** alice's PAT `docs`: acme/web repo:read + repo:write on Doc/** only. */
  docs: string;
  /** alice's PAT `gone`, revoked. */
  revoked: string;
}

export async function makeWorld(): Promise<World> {
  const roles = new Map<string, UserRoles>([
    ['alice', { orgs: { acme: 'editor' } }],
    ['bob', { orgs: { acme: 'viewer' } }],
    ['mallory', { orgs: { web: 'editor' } }],
  ]);
  const auth = createAuth({
    issuer: 'https://svc.test',
    keys: await generateKeyRing(),
    members: { rolesOf: (u) => roles.get(u) ?? {} },
    tokens: new MemoryTokenStore(),
  });
  const alice = await auth.issueSession('alice');
  const client = auth.client(await auth.authenticate(alice));
  const reader = (await client.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
  const docs = (
    await client.token.create({
      name: 'docs',
      scopes: [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }],
    })
  ).token;
  const revoked = (await client.token.create({ name: 'gone' })).token;
  await client.token.revoke('gone');
  return {
    auth,
    alice,
    bob: await auth.issueSession('bob'),
    mallory: await auth.issueSession('mallory'),
    reader,
    docs,
    revoked,
  };
}

/** Listen on 127.0.0.1, port 0; resolves to the base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Close a server and every connection it holds. */
export async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A request with an optional bearer credential. */
export function call(base: string, method: string, path: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
  if (token !== undefined) headers.authorization = token.includes(' ') ? token : `Bearer ${token}`;
  return fetch(`${base}${path}`, { ...init, method, headers });
}
