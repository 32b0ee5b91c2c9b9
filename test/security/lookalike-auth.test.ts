/**
 * A look-alike `Auth` (an object with `authenticateRequest`, `authorize` and the rest, a copy of a real
 * one, a Proxy or a wrapper of it) decides by its own rules: handed to an edge, it would let a stand-in
 * admit anyone. Every edge that takes an `auth` option refuses it with a `ValidationError` when it is
 * built, and builds with the real one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import Fastify from 'fastify';
import { ValidationError } from '../../src/errors';
import type { Principal } from '../../src/core/policy';
import { createAuth, isAuth, type Auth } from '../../src/service';
import { generateKeyRing } from '../../src/tokens';
import { requireAuth } from '../../src/adapters/node';
import { withAuth } from '../../src/adapters/fetch';
import { svcAuth as expressAuth } from '../../src/adapters/express';
import { svcAuth as honoAuth } from '../../src/adapters/hono';
import { svcAuth as fastifyAuth } from '../../src/adapters/fastify';
import { guardTool, mcpHandlers, mcpTokenVerifier } from '../../src/mcp';
import { credentialRevocationHandler, githubSecretScanningHandler } from '../../src/leaks';
import { createAuthorizationServer, MemoryOAuthStorage } from '../../src/entries/oauth';
import { createReferenceServer, type ThingStore } from '../../src/app/server';

let real: Auth;
beforeAll(async () => {
  real = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
});

/** Every way a look-alike can be made: by hand, or from the real `Auth` without being it. */
function lookalikes(): [string, unknown][] {
  const anyone: Principal = { kind: 'session', userId: 'admin', expiresAt: new Date(8.64e15), serviceAccount: null };
  const handMade = {
    authenticate: async () => anyone,
    authenticateRequest: async () => anyone,
    authorize: () => ({ allowed: true }),
    principalFor: async () => anyone,
    revokeToken: async () => undefined,
    reportLeaked: async () => ({ received: 0, revoked: 0, ignored: 0, revokedIds: [], outcomes: [] }),
    committer: () => 'svc:default/users/Identity/admin',
  };
  return [
    ['a hand-made object with every method an edge calls', handMade],
    ['a copy of a real Auth ({ ...auth })', { ...real }],
    ['a real Auth with authorize replaced', { ...real, authorize: () => ({ allowed: true }) }],
    ['a transparent Proxy of a real Auth', new Proxy(real, {})],
    ['an object whose prototype is a real Auth', Object.create(real) as unknown],
  ];
}

const things: ThingStore = {
  head: () => Promise.resolve('0'.repeat(40)),
  get: () => Promise.resolve(undefined),
  put: () => Promise.reject(new Error('read-only')),
};
const noServer = (): never => {
  throw new Error('never called: the handler is only built');
};

/** Each edge built over `auth`: resolves when it was built, rejects (or throws) when it refused. */
const edges: [string, (auth: Auth) => unknown][] = [
  ['requireAuth (node:http)', (auth) => requireAuth(auth)],
  ['requireAuth with a permission', (auth) => requireAuth(auth, { permission: 'repo:read', resource: () => 'acme/web' })],
  ['withAuth (fetch)', (auth) => withAuth(auth, () => new Response())],
  ['svc-auth/express svcAuth', (auth) => express().use(expressAuth(auth))],
  ['svc-auth/hono svcAuth', (auth) => honoAuth(auth)],
  [
    'svc-auth/fastify plugin',
    async (auth) => {
      const app = Fastify();
      try {
        await app.register(fastifyAuth, { auth });
        await app.ready();
      } finally {
        await app.close();
      }
    },
  ],
  ['mcpTokenVerifier', (auth) => mcpTokenVerifier(auth)],
  ['guardTool', (auth) => guardTool(auth, { permission: 'repo:read', resource: () => 'acme/web' }, () => ({ content: [] }))],
  ['mcpHandlers', (auth) => mcpHandlers({ auth, server: noServer })],
  ['credentialRevocationHandler', (auth) => credentialRevocationHandler(auth)],
  ['githubSecretScanningHandler', (auth) => githubSecretScanningHandler(auth, { tokenTypes: ['svc_pat'] })],
  [
    'createAuthorizationServer (svc-auth/oauth)',
    (auth) =>
      createAuthorizationServer({ auth, issuer: 'http://127.0.0.1:8080', signIn: { users: () => [] }, storage: new MemoryOAuthStorage() }),
  ],
  ['the reference server', (auth) => createReferenceServer({ auth, things, log: () => undefined })],
];

/** The refusal of building an edge, or `undefined` when it was built. */
async function refusal(build: () => unknown): Promise<unknown> {
  try {
    await build();
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('attack: a look-alike Auth is refused when each edge is built', () => {
  it('isAuth knows the object createAuth returned and nothing else', () => {
    expect(isAuth(real)).toBe(true);
    for (const [, fake] of lookalikes()) expect(isAuth(fake)).toBe(false);
    for (const value of [undefined, null, {}, 'auth', () => real]) expect(isAuth(value)).toBe(false);
  });

  it.each(edges)('%s builds on the real Auth', async (_name, build) => {
    expect(await refusal(() => build(real))).toBeUndefined();
  });

  it.each(edges)('%s refuses every look-alike with a ValidationError naming auth', async (_name, build) => {
    for (const [what, fake] of lookalikes()) {
      const err = await refusal(() => build(fake as Auth));
      expect(err, what).toBeInstanceOf(ValidationError);
      const issues = (err as ValidationError).issues;
      expect(
        issues.some((i) => /(^|\.)auth$/.test(i.pathText) && /createAuth returned/.test(i.message)),
        `${what}: ${JSON.stringify(issues)}`,
      ).toBe(true);
    }
  });
});
