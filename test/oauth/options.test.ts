import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testAuth } from '../support/auth';
import { ValidationError } from '../../src/errors';
import { createAuthorizationServer, MemoryOAuthStorage, type AuthorizationServerOptions } from '../../src/entries/oauth';
import type { Auth } from '../../src/service';

describe('createAuthorizationServer checks its options when built (every problem at once)', () => {
  let auth: Auth;
  beforeAll(async () => {
    ({ auth } = await testAuth({ issuer: 'svc-opt' }));
  });
  afterAll(() => undefined);
  const base = (): AuthorizationServerOptions => ({
    auth,
    issuer: 'http://127.0.0.1:8080',
    signIn: { users: () => [] },
    storage: new MemoryOAuthStorage(),
  });

  async function issues(options: unknown): Promise<string[]> {
    try {
      await createAuthorizationServer(options as AuthorizationServerOptions);
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).issues.map((i) => `${i.pathText}: ${i.message}`);
    }
    throw new Error('no ValidationError');
  }

  it('collects every bad option in one ValidationError', async () => {
    const found = await issues({
      auth: {},
      issuer: 'https://svc.example/auth',
      signIn: { users: 'alice' },
      storage: new Map(),
      clients: {
        registration: 'yes',
        registrationsPerHour: 0,
        unusedClientTtlSec: 1.5,
        metadataDocuments: { allow: ['not a url'], maxBytes: 10 },
      },
      accessTokenTtlSec: 7200,
      pathPrefix: '/.well-known/x',
      colour: 'blue',
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^colour: unknown option/),
        expect.stringMatching(/^auth: /),
        expect.stringMatching(/^issuer: must be an origin/),
        expect.stringMatching(/^signIn: /),
        expect.stringMatching(/^storage: /),
        expect.stringMatching(/^clients\.registration: /),
        expect.stringMatching(/^clients\.registrationsPerHour: must be an integer from 1 to 100 000/),
        expect.stringMatching(/^clients\.unusedClientTtlSec: must be an integer from 600/),
        expect.stringMatching(/allow\[0\]: must be an origin/),
        expect.stringMatching(/maxBytes: /),
        expect.stringMatching(/^accessTokenTtlSec: must be an integer from 60 to 3600/),
        expect.stringMatching(/^pathPrefix: /),
      ]),
    );
  });

  it('refuses an http issuer that is not loopback, a trailing slash, and resources off its origin', async () => {
    expect(await issues({ ...base(), issuer: 'http://svc.example' })).toEqual([
      expect.stringMatching(/https unless its host is a loopback/),
    ]);
    expect(await issues({ ...base(), issuer: 'http://127.0.0.1:8080/' })).toEqual([expect.stringMatching(/no trailing slash/)]);
    expect(await issues({ ...base(), resources: ['https://elsewhere.example/mcp'] })).toEqual([expect.stringMatching(/issuer's origin/)]);
    expect(await issues({ ...base(), resources: ['http://127.0.0.1:8080/mcp', 'http://127.0.0.1:8080/mcp/'] })).toEqual([
      expect.stringMatching(/listed twice/),
    ]);
  });

  it('a sign-in of your own needs both currentUser and loginUrl', async () => {
    expect(await issues({ ...base(), signIn: { currentUser: () => 'alice' } })).toEqual([expect.stringMatching(/^signIn: expected/)]);
    await expect(
      createAuthorizationServer({ ...base(), signIn: { currentUser: () => 'alice', loginUrl: (r) => `/login?next=${r}` } }),
    ).resolves.toBeDefined();
  });

  it('a storage that cannot hand out secrets: UnavailableError, nothing served', async () => {
    const broken = Object.assign(new MemoryOAuthStorage(), { initSecrets: () => Promise.reject(new Error('disk on fire')) });
    await expect(createAuthorizationServer({ ...base(), storage: broken })).rejects.toMatchObject({ code: 'unavailable' });
    const damaged = Object.assign(new MemoryOAuthStorage(), { initSecrets: () => Promise.resolve({ version: 2 }) });
    await expect(createAuthorizationServer({ ...base(), storage: damaged as never })).rejects.toMatchObject({
      code: 'unavailable',
      message: /damaged/,
    });
  });
});
