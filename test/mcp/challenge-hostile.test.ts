/**
 * Hostile input against the scope challenge of `/mcp`: what a request sends
 * never reaches the `WWW-Authenticate` header (scope values are svc
 * permissions, quoted per RFC 6750), and no body, however large or odd, makes
 * the pre-check throw, answer 500, or challenge a credential it must not.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { canUseTool, guardTool, mcpHandlers, type McpHandlers, type McpToolPolicy } from '../../src/mcp';
import { PERMISSIONS } from '../../src/core/vocabulary';
import type { Auth } from '../../src/service';
import { systemTime, testAuth } from '../support/auth';
import { API_AUDIENCE, startCompanyIdp, type CompanyIdp } from '../support/company-idp';

type Put = { org: string; repo: string; name: string };
const WRITE: McpToolPolicy<Put> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}`, thing: (a) => a.name };
const RESOURCE = 'https://svc.test/mcp';
/** RFC 6750 3: the challenge, every value a quoted string of fixed text or vocabulary words. */
const CHALLENGE =
  /^Bearer realm="svc", error="insufficient_scope", scope="([a-z:]+(?: [a-z:]+)*)", resource_metadata="https:\/\/svc\.test\/\.well-known\/oauth-protected-resource\/mcp", error_description="[^"\\]+"$/;

let idp: CompanyIdp;
let auth: Auth;
let h: McpHandlers;
let narrowed: string;
let pat: string;

beforeAll(async () => {
  idp = await startCompanyIdp(['alice']);
  ({ auth } = await testAuth({
    roles: { alice: { orgs: { acme: 'editor' } } },
    now: systemTime,
    // One IdP whose subs are this service's user ids: mapped as they are (T10 derives ids otherwise).
    trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE, userId: (c) => String(c['sub']) }],
  }));
  h = mcpHandlers({
    auth,
    resource: RESOURCE,
    server: (p) => {
      const server = new McpServer({ name: 't', version: '1' });
      if (canUseTool(p, WRITE))
        server.registerTool(
          'thing_put',
          { inputSchema: { org: z.string(), repo: z.string(), name: z.string() } },
          guardTool(auth, WRITE, () => ({ content: [{ type: 'text', text: 'written' }] })),
        );
      return server;
    },
    tools: { thing_put: WRITE },
  });
  narrowed = await idp.token('alice', { scope: 'repo:read' });
  const session = await auth.authenticate(await auth.issueSession('alice'));
  pat = (await auth.client(session).token.create({ name: 'reader', scopes: [{ permissions: ['repo:read'] }] })).token;
});
afterAll(async () => {
  await idp.close();
});

function post(token: string, body: string): Promise<Response> {
  return h.mcp.fetch(
    new Request(RESOURCE, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    }),
  );
}

const call = (name: unknown, args: unknown, id: unknown = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

function scopesOf(header: string | null): string[] {
  const m = CHALLENGE.exec(header ?? '');
  expect(m, header ?? 'no header').not.toBeNull();
  return (m?.[1] ?? '').split(' ');
}

describe('scope param injection in the challenge', () => {
  it('quotes, commas and attribute text in the arguments never reach the header: only vocabulary words', async () => {
    const evil = 'acme", scope="org:admin", error="x';
    for (const args of [
      { org: evil, repo: 'web', name: 'Doc/a' },
      { org: 'acme', repo: 'web\r\nSet-Cookie: a=b', name: 'Doc/a' },
      { org: 'acme', repo: 'web', name: '", realm="evil' },
    ]) {
      const r = await post(narrowed, call('thing_put', args));
      expect(r.status).toBe(403);
      const header = r.headers.get('www-authenticate');
      expect(scopesOf(header)).toEqual(['repo:read', 'repo:write']);
      expect(header).not.toMatch(/org:admin|evil|Set-Cookie/);
    }
  });

  it('a tool name that is not a listed tool is never challenged (the server answers it)', async () => {
    for (const name of ['thing_put", scope="org:admin', 'thing_put ', 'THING_PUT', '__proto__', 'constructor']) {
      const r = await post(narrowed, call(name, { org: 'acme', repo: 'web', name: 'Doc/a' }));
      expect(r.status, name).toBe(200);
      expect(r.headers.get('www-authenticate')).toBeNull();
    }
  });
});

describe('a PAT never gets a 403 challenge', () => {
  it('whatever the call, a PAT that lacks the permission gets a tool error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ org: fc.string(), repo: fc.string(), name: fc.string() }), async (args) => {
        const r = await post(pat, call('thing_put', args));
        expect(r.status).toBe(200);
        expect(r.headers.get('www-authenticate')).toBeNull();
      }),
      { numRuns: 40 },
    );
  });
});

describe('huge and odd bodies do not crash the pre-check', () => {
  it('any JSON as params, arguments or id: never a 500, and a 403 only with the fixed challenge', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.jsonValue(), fc.jsonValue(), async (params, args, id) => {
        for (const body of [
          JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
          call('thing_put', args, id),
          JSON.stringify([{ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'thing_put', arguments: args } }]),
        ]) {
          const r = await post(narrowed, body);
          expect(r.status).not.toBe(500);
          if (r.status === 403)
            expect(scopesOf(r.headers.get('www-authenticate')).every((s) => PERMISSIONS.includes(s as never))).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a 900 KB argument, 100 000 nested arrays, a __proto__ key and a non-object body are answered, not thrown', async () => {
    const huge = await post(narrowed, call('thing_put', { org: 'a'.repeat(900_000), repo: 'web', name: 'Doc/a' }));
    // The resource cannot be told from such arguments: the broader question (the role holds repo:write somewhere) decides.
    expect(huge.status).toBe(403);
    const deep = await post(
      narrowed,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    );
    expect(deep.status).not.toBe(500);
    const proto = await post(
      narrowed,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thing_put","arguments":{"__proto__":{"org":"acme"}}}}',
    );
    // `__proto__` is an own key out of JSON.parse: the arguments name no org the role holds, so a tool error.
    expect(proto.status).toBe(200);
    for (const body of ['null', '"tools/call"', '42', '{"method":"tools/call"}', 'not json', ''])
      expect((await post(narrowed, body)).status).not.toBe(500);
  });

  it('a batch is never challenged as a whole: the server answers each message', async () => {
    const r = await post(narrowed, `[${call('thing_put', { org: 'acme', repo: 'web', name: 'Doc/a' })}]`);
    expect(r.status).not.toBe(403);
    expect(r.status).not.toBe(500);
  });
});

describe('listing what the role allows opens nothing to forgery', () => {
  it('canUseTool on a copied or forged OAuth principal, or a hostile AuthInfo, is false: only a real narrowed principal lists by its role', async () => {
    const real = await auth.authenticate(narrowed);
    expect(canUseTool(real, WRITE)).toBe(true);
    // A copy carries no narrowing state, so it is judged by its (absent) grant: never listed.
    expect(canUseTool({ ...real }, WRITE)).toBe(false);
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          return true;
        },
      },
    );
    expect(canUseTool(hostile as never, WRITE)).toBe(false);
    expect(canUseTool({ clientId: 'x', extra: { principal: { ...real } } } as never, WRITE)).toBe(false);
  });

  it('guardTool with a 2.x ctx whose http getter throws: a tool error, never a throw, never the handler', async () => {
    let ran = false;
    const tool = guardTool(auth, WRITE, () => {
      ran = true;
      return { content: [{ type: 'text', text: 'written' }] };
    });
    const ctx = Object.defineProperty({}, 'http', {
      get() {
        throw new Error('trap');
      },
    });
    const r = (await tool({ org: 'acme', repo: 'web', name: 'Doc/a' }, ctx)) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(ran).toBe(false);
    // The real AuthInfo in the 2.x place, for a token whose grant lacks repo:write: refused by its scope, never run.
    const info = { token: narrowed, clientId: 'c', scopes: [], expiresAt: 0, extra: { principal: await auth.authenticate(narrowed) } };
    const scoped = (await tool({ org: 'acme', repo: 'web', name: 'Doc/a' }, { http: { authInfo: info } })) as CallToolResult;
    expect(scoped._meta?.['svc-auth/error']).toMatchObject({ reason: 'scope', scope: 'repo:read repo:write' });
    expect(ran).toBe(false);
  });
});
