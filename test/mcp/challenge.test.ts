/**
 * The OAuth scope challenges of `/mcp` (MCP authorization 2025-11-25), on the
 * library's handlers with real OAuth access tokens from a company IdP
 * (oidc-provider on loopback): the `scope` of the 401 and the metadata's
 * `scopes_supported`, and the 403 `insufficient_scope` challenge only when an
 * OAuth token's granted scope is what refuses (never for a PAT, never for a
 * refusal by the role: a new consent cannot change those).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  canUseTool,
  guardTool,
  mcpHandlers,
  type McpHandlers,
  protectedResourceMetadata,
  TOOL_ERROR_META,
  type McpHandlerOptions,
  type McpToolPolicy,
} from '../../src/mcp';
import { ValidationError } from '../../src/errors';
import type { Auth, AuthEvent } from '../../src/service';
import { PERMISSIONS } from '../../src/core/vocabulary';
import type { Principal, UserRoles } from '../../src/core/policy';
import { systemTime, testAuth } from '../support/auth';
import { API_AUDIENCE, startCompanyIdp, type CompanyIdp } from '../support/company-idp';
import { caught } from '../support/errors';

type Put = { org: string; repo: string; name: string };
const READ: McpToolPolicy<{ org: string; repo: string }> = { permission: 'repo:read', resource: (a) => `${a.org}/${a.repo}` };
const WRITE: McpToolPolicy<Put> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}`, thing: (a) => a.name };
const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/** As svc serve does: only the tools this credential can use are registered (`filter: false` registers all). */
function serverFor(auth: Auth, principal: Principal, filter = true): McpServer {
  const server = new McpServer({ name: 't', version: '1' });
  const repo = { org: z.string(), repo: z.string() };
  if (!filter || canUseTool(principal, READ))
    server.registerTool(
      'repo_head',
      { inputSchema: repo },
      guardTool(auth, READ, () => ok('abc')),
    );
  if (!filter || canUseTool(principal, WRITE))
    server.registerTool(
      'thing_put',
      { inputSchema: { ...repo, name: z.string() } },
      guardTool(auth, WRITE, () => ok('written')),
    );
  return server;
}

const RESOURCE = 'https://svc.test/mcp';
const META = 'https://svc.test/.well-known/oauth-protected-resource/mcp';

let idp: CompanyIdp;
let auth: Auth;
const events: AuthEvent[] = [];
const roles: Record<string, UserRoles> = {
  alice: { orgs: { acme: 'editor' } },
  bob: { orgs: { acme: 'viewer' } },
  // repo:write on acme/web only.
  carol: { orgs: { acme: 'viewer' }, repos: { 'acme/web': 'editor' } },
};

beforeAll(async () => {
  idp = await startCompanyIdp(['alice', 'bob', 'carol']);
  ({ auth } = await testAuth({
    roles,
    now: systemTime,
    // One IdP whose subs are this service's user ids: mapped as they are (T10 derives ids otherwise).
    trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE, userId: (c) => String(c['sub']) }],
    onEvent: (e) => void events.push(e),
  }));
});
afterAll(async () => {
  await idp.close();
});

function handlers(extra: Partial<McpHandlerOptions> = {}): McpHandlers {
  return mcpHandlers({
    auth,
    resource: RESOURCE,
    authorizationServers: [idp.issuer],
    server: (p) => serverFor(auth, p),
    tools: { repo_head: READ, thing_put: WRITE },
    ...extra,
  });
}

function call(h: McpHandlers, token: string | undefined, body: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return h.mcp.fetch(new Request(RESOURCE, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }));
}

const put = (args: Record<string, unknown> = { org: 'acme', repo: 'web', name: 'Doc/a' }, name = 'thing_put'): unknown => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function toolResult(r: Response): Promise<CallToolResult> {
  expect(r.status).toBe(200);
  return ((await r.json()) as { result: CallToolResult }).result;
}

describe('the scope a client asks for: every 401 of /mcp and the metadata agree', () => {
  it('by default the first sign-in asks for the read permissions the tools need; scopes_supported lists all they need', async () => {
    const h = handlers();
    const r = await call(h, undefined, put());
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="svc", resource_metadata="${META}", scope="repo:read"`);
    const doc = (await h.metadata.fetch(new Request(META)).json()) as Record<string, unknown>;
    expect(doc['scopes_supported']).toEqual(['repo:read', 'repo:write']);
    const bad = await call(h, 'not-a-token', put());
    expect(bad.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="svc", error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+", scope="repo:read"$/,
    );
    // Tools that need no read permission: the first sign-in asks for what they need.
    const writeOnly = handlers({ tools: { thing_put: WRITE } });
    expect((await call(writeOnly, undefined, put())).headers.get('www-authenticate')).toMatch(/, scope="repo:write"$/);
  });

  it('the scopes option sets the 401 scope; scopes_supported adds what the tools need; [] leaves the attribute out', async () => {
    const wide = handlers({ scopes: ['repo:read', 'repo:write'] });
    expect((await call(wide, undefined, put())).headers.get('www-authenticate')).toMatch(/, scope="repo:read repo:write"$/);
    const org = handlers({ scopes: ['org:read'] });
    expect((await call(org, undefined, put())).headers.get('www-authenticate')).toMatch(/, scope="org:read"$/);
    expect(((await org.metadata.fetch(new Request(META)).json()) as Record<string, unknown>)['scopes_supported']).toEqual([
      'repo:read',
      'repo:write',
      'org:read',
    ]);
    const none = handlers({ scopes: [] });
    expect((await call(none, undefined, put())).headers.get('www-authenticate')).toBe(`Bearer realm="svc", resource_metadata="${META}"`);
    expect(((await none.metadata.fetch(new Request(META)).json()) as Record<string, unknown>)['scopes_supported']).toEqual([
      'repo:read',
      'repo:write',
    ]);
    const bare = mcpHandlers({ auth, resource: RESOURCE, server: (p) => serverFor(auth, p) });
    expect((await call(bare, undefined, put())).headers.get('www-authenticate')).toBe(`Bearer realm="svc", resource_metadata="${META}"`);
    expect(await bare.metadata.fetch(new Request(META)).json()).not.toHaveProperty('scopes_supported');
    expect(protectedResourceMetadata({ resource: RESOURCE, scopesSupported: ['repo:write', 'repo:read'] }).scopes_supported).toEqual([
      'repo:read',
      'repo:write',
    ]);
  });

  it('misuse fails when the handlers are built, with a typed ValidationError naming the option', () => {
    const build = (extra: Record<string, unknown>) =>
      caught(() => mcpHandlers({ auth, server: () => new McpServer({ name: 't', version: '1' }), ...extra }));
    for (const scopes of [
      ['repo:read', 'repo:read'],
      ['openid'],
      'repo:read',
      ['repo:read', 'scope="x"'],
      new Array(8).fill('repo:read'),
    ]) {
      const err = build({ scopes });
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]?.pathText).toMatch(/^options\.scopes/);
    }
    const err = build({ tools: { thing_put: { permission: 'repo:write', resource: 'acme/web' } } });
    expect((err as ValidationError).issues.map((i) => i.pathText)).toEqual(['options.tools.thing_put.resource']);
    expect(caught(() => protectedResourceMetadata({ resource: RESOURCE, scopesSupported: ['admin'] }))).toBeInstanceOf(ValidationError);
  });
});

describe('the 403 insufficient_scope challenge: only when the granted scope is what refuses', () => {
  it('an OAuth token approved for repo:read calling a write tool: 403 asking for granted plus needed', async () => {
    const token = await idp.token('alice', { scope: 'openid repo:read' });
    const r = await call(handlers(), token, put());
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", resource_metadata="${META}", ` +
        'error_description="this token was not granted repo:write: sign in again and allow it"',
    );
    expect(await r.json()).toMatchObject({ error: 'forbidden', reason: 'scope', scope: 'repo:read repo:write' });
    await auth.flush();
    expect(events.filter((e) => e.type === 'access.denied').at(-1)).toMatchObject({
      resource: 'acme/web',
      permission: 'repo:write',
      reason: 'scope',
      actor: { kind: 'session', userId: 'alice' },
    });
    // The same token may read: no challenge where the scope holds.
    expect((await toolResult(await call(handlers(), token, put({ org: 'acme', repo: 'web' }, 'repo_head')))).isError).toBeUndefined();
  });

  it('on the node handler too (a real socket on loopback)', async () => {
    const { createServer } = await import('node:http');
    const h = mcpHandlers({ auth, resource: RESOURCE, server: (p) => serverFor(auth, p), tools: { thing_put: WRITE } });
    const server = createServer((req, res) => void h.mcp.node(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as { port: number };
      const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await idp.token('alice', { scope: 'repo:read' })}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(put()),
      });
      expect(r.status).toBe(403);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", /);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('granted plus needed, for any approved scope: a 403 exactly when repo:write was left out', async () => {
    const h = handlers();
    await fc.assert(
      fc.asyncProperty(fc.subarray([...PERMISSIONS]), async (granted) => {
        const r = await call(h, await idp.token('alice', { scope: ['openid', 'read:messages', ...granted].join(' ') }), put());
        if (granted.includes('repo:write')) expect(r.status).toBe(200);
        else {
          expect(r.status).toBe(403);
          const want = PERMISSIONS.filter((p) => p === 'repo:write' || granted.includes(p)).join(' ');
          expect(r.headers.get('www-authenticate')).toContain(` scope="${want}", `);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a token whose scope named no svc permission asks for just the one needed', async () => {
    const r = await call(handlers(), await idp.token('alice', { scope: 'openid read:messages' }), put());
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/ scope="repo:write", /);
  });

  it('role-denied call never gets a challenge (no consent loop): a viewer stays a tool error whatever the scope', async () => {
    for (const scope of ['repo:read', 'repo:read repo:write']) {
      const result = await toolResult(await call(handlers(), await idp.token('bob', { scope }), put()));
      expect(result.isError).toBe(true);
      expect(result._meta?.[TOOL_ERROR_META]).toMatchObject({ error: 'forbidden', permission: 'repo:write' });
      expect(result._meta?.[TOOL_ERROR_META]).not.toHaveProperty('scope');
    }
  });

  it('role-denied call on this resource never gets a challenge: carol may write acme/web only', async () => {
    const token = await idp.token('carol', { scope: 'repo:read' });
    expect((await call(handlers(), token, put({ org: 'acme', repo: 'web', name: 'Doc/a' }))).status).toBe(403);
    const elsewhere = await toolResult(await call(handlers(), token, put({ org: 'acme', repo: 'api', name: 'Doc/a' })));
    expect(elsewhere.isError).toBe(true);
  });

  it('a PAT never gets a 403 challenge: its scopes are fixed, a tool error says so', async () => {
    const session = await auth.authenticate(await auth.issueSession('alice'));
    const pat = (await auth.client(session).token.create({ name: 'reader', scopes: [{ permissions: ['repo:read'] }] })).token;
    const result = await toolResult(await call(handlers(), pat, put()));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toMatch(/insufficient_scope/);
    // An unnarrowed session (no scope claim) holds what the role holds: the call runs.
    expect((await toolResult(await call(handlers(), await idp.token('alice'), put()))).content).toEqual([
      { type: 'text', text: 'written' },
    ]);
  });

  it('a refusal by the scope found inside a tool (no tools option) is a tool error that names the scope to ask for', async () => {
    const h = mcpHandlers({ auth, resource: RESOURCE, server: (p) => serverFor(auth, p, false) });
    const result = await toolResult(await call(h, await idp.token('alice', { scope: 'repo:read' }), put()));
    expect(result.isError).toBe(true);
    expect(result._meta?.[TOOL_ERROR_META]).toMatchObject({ reason: 'scope', scope: 'repo:read repo:write' });
    const viewer = await toolResult(await call(h, await idp.token('bob', { scope: 'repo:read' }), put()));
    expect(viewer._meta?.[TOOL_ERROR_META]).toMatchObject({ reason: 'role' });
    expect(viewer._meta?.[TOOL_ERROR_META]).not.toHaveProperty('scope');
  });
});

describe('step-up is reachable: an OAuth token sees the tools its role allows, and a call beyond its grant is the 403', () => {
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  async function listed(token: string): Promise<string[]> {
    const r = await call(handlers(), token, list);
    expect(r.status).toBe(200);
    return ((await r.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name).sort();
  }

  it('a read-only grant hides no tool the role allows: thing_put is listed, and calling it is the challenge, not "not found"', async () => {
    const token = await idp.token('alice', { scope: 'repo:read' });
    expect(await listed(token)).toEqual(['repo_head', 'thing_put']);
    const r = await call(handlers(), token, put());
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", /);
  });

  it('what no consent can lift stays hidden: a viewer, and a read-only PAT, never see thing_put', async () => {
    expect(await listed(await idp.token('bob', { scope: 'repo:read repo:write' }))).toEqual(['repo_head']);
    const session = await auth.authenticate(await auth.issueSession('alice'));
    const pat = (await auth.client(session).token.create({ name: 'lister', scopes: [{ permissions: ['repo:read'] }] })).token;
    expect(await listed(pat)).toEqual(['repo_head']);
    // canUseTool says the same for the principal and for its AuthInfo.
    const reader = await auth.authenticate(await idp.token('alice', { scope: 'repo:read' }));
    expect(canUseTool(reader, WRITE)).toBe(true);
    expect(canUseTool(await auth.authenticate(pat), WRITE)).toBe(false);
  });

  it('for any role and any granted scope: listed exactly when the role allows, 403 exactly when the grant alone refuses', async () => {
    const h = handlers();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('alice', 'bob', 'carol'), fc.subarray([...PERMISSIONS]), async (user, granted) => {
        const token = await idp.token(user, { scope: ['openid', ...granted].join(' ') });
        const roleAllows = user !== 'bob';
        expect((await listed(token)).includes('thing_put')).toBe(roleAllows);
        const r = await call(h, token, put());
        if (!roleAllows) expect((await toolResult(r)).isError).toBe(true);
        // A claim with no svc permission word (only `openid`) does not narrow (T10): the role decides.
        else if (granted.length === 0 || granted.includes('repo:write')) expect((await toolResult(r)).isError).toBeUndefined();
        else {
          expect(r.status).toBe(403);
          // Never more than granted plus what this call needs.
          const want = PERMISSIONS.filter((p) => p === 'repo:write' || granted.includes(p)).join(' ');
          expect(r.headers.get('www-authenticate')).toContain(` scope="${want}", `);
        }
      }),
      { numRuns: 30 },
    );
  });
});
