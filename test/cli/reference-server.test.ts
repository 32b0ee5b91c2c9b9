/**
 * The reference server on what it is handed, and nothing else: an `Auth` of the user's own (memory
 * stores, an audit hook), a things store in memory and a log. Its denials reach the audit hook as
 * requireAuth's do, and its /mcp requests get their access log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MemoryTokenStore, createAuth, generateKeyRing, type Auth, type AuthEvent } from 'svc-auth';
import { MemoryMembershipStore } from 'svc-auth/stores';
import { createReferenceServer, type ReferenceServer, type Thing, type ThingStore } from '../../src/app/server';

/** A things store in a Map: the server needs no file, only this interface. */
class MapThings implements ThingStore {
  readonly rows = new Map<string, Thing>();
  heads = new Map<string, string>();
  head(repo: string): Promise<string> {
    return Promise.resolve(this.heads.get(repo) ?? '0'.repeat(40));
  }
  get(repo: string, name: string): Promise<Thing | undefined> {
    return Promise.resolve(this.rows.get(`${repo} ${name}`));
  }
  put(repo: string, name: string, content: unknown, committer: string): Promise<Thing> {
    const thing = { name, content, committer, commit: String(this.rows.size + 1).padStart(40, '0') };
    this.rows.set(`${repo} ${name}`, thing);
    this.heads.set(repo, thing.commit);
    return Promise.resolve(thing);
  }
}

describe('the reference server on an Auth, a things store and a log handed to it', { timeout: 60_000 }, () => {
  const events: AuthEvent[] = [];
  const logs: string[] = [];
  const things = new MapThings();
  let auth: Auth;
  let server: ReferenceServer;
  let url = '';
  let reader = '';

  beforeAll(async () => {
    const members = new MemoryMembershipStore();
    await members.set('alice', 'acme', 'editor');
    auth = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      members,
      tokens: new MemoryTokenStore(),
      onEvent: (e) => void events.push(e),
    });
    const session = await auth.issueSession('alice');
    const client = auth.client(await auth.authenticate(session));
    reader = (await client.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
    server = createReferenceServer({ auth, things, log: (line) => logs.push(line), version: '9.9.9' });
    url = await server.listen({ port: 0 });
  });
  afterAll(() => server?.close());

  const call = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${reader}` } });

  it('reads and writes the store it was given, through its routes', async () => {
    await things.put('acme/web', 'Doc/a', { text: 'hi' }, 'svc:default/users/Identity/alice');
    const r = await call('/api/repos/acme/web/things/Doc/a');
    expect(await r.json()).toEqual({ name: 'Doc/a', content: { text: 'hi' }, commit: things.heads.get('acme/web') });
  });

  it('a denial reaches the audit hook as access.denied, with the actor and the thing, as from requireAuth', async () => {
    const r = await call('/api/repos/acme/web/things/Doc/a', { method: 'PUT', body: '{"content":1}' });
    expect(r.status).toBe(403);
    expect(logs.at(-1)).toBe('PUT /api/repos/acme/web/things/Doc/a 403 user=alice token=reader reason=scope');
    await auth.flush();
    const denied = events.filter((e) => e.type === 'access.denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({
      actor: { kind: 'pat', userId: 'alice', tokenName: 'reader' },
      resource: 'acme/web',
      permission: 'repo:write',
      thingName: 'Doc/a',
      reason: 'scope',
    });
  });

  it('an /mcp request gets its access log line, with who it was', async () => {
    const client = new Client({ name: 'reference-server-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${reader}` } },
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'svc', version: '9.9.9' });
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.structuredContent).toEqual({ kind: 'pat', user: 'alice', token: 'reader' });
    } finally {
      await client.close();
    }
    expect(logs.filter((l) => l.startsWith('POST /mcp ')).at(-1)).toBe('POST /mcp 200 user=alice token=reader reason=mcp');
    await fetch(`${url}/.well-known/oauth-protected-resource/mcp`);
    expect(logs.at(-1)).toMatch(/^GET \/\.well-known\/oauth-protected-resource\/mcp 200 user=- token=- reason=mcp$/);
  });
});
