import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { canUseTool, guardTool, mcpTokenVerifier, TOOL_ERROR_META, type McpToolPolicy } from '../../src/mcp';
import { testAuth, type TestAuth } from '../support/auth';
import { caught } from '../support/errors';

type Args = { org: string; repo: string; name?: string };
const write: McpToolPolicy<Args> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}`, thing: (a) => a.name };
const read: McpToolPolicy<Args> = { permission: 'repo:read', resource: (a) => `${a.org}/${a.repo}` };

describe('guardTool and canUseTool', () => {
  let s: TestAuth;
  let docs: AuthInfo;
  let reader: AuthInfo;
  beforeAll(async () => {
    s = await testAuth();
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const v = mcpTokenVerifier(s.auth);
    docs = await v.verifyAccessToken(
      (
        await alice.token.create({
          name: 'docs',
          scopes: [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }],
        })
      ).token,
    );
    reader = await v.verifyAccessToken(
      (await alice.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token,
    );
  });

  it('runs the handler with the principal when authorize allows', async () => {
    const tool = guardTool(s.auth, write, (a: Args, _extra, p) => ({
      content: [{ type: 'text' as const, text: `${p.tokenName}:${a.name}` }],
    }));
    expect(await tool({ org: 'acme', repo: 'web', name: 'Doc/a' }, { authInfo: docs })).toEqual({
      content: [{ type: 'text', text: 'docs:Doc/a' }],
    });
  });

  it('a deny is isError naming permission, resource, thing and reason; the handler never runs', async () => {
    let ran = false;
    const tool = guardTool(s.auth, write, () => {
      ran = true;
      return { content: [] };
    });
    const thing = await tool({ org: 'acme', repo: 'web', name: 'Img/logo' }, { authInfo: docs });
    expect(thing).toMatchObject({
      isError: true,
      _meta: {
        [TOOL_ERROR_META]: { error: 'forbidden', permission: 'repo:write', resource: 'acme/web', thing: 'Img/logo', reason: 'thing' },
      },
    });
    // No structuredContent: clients check it against the tool's outputSchema even on errors.
    expect(thing).not.toHaveProperty('structuredContent');
    expect((thing.content[0] as { text: string }).text).toBe(
      "forbidden: repo:write on acme/web (thing Img/logo) was refused (thing): the token's allowedMatches do not cover this thing",
    );
    const scope = await tool({ org: 'acme', repo: 'web', name: 'Doc/a' }, { authInfo: reader });
    expect(scope).toMatchObject({ isError: true, _meta: { [TOOL_ERROR_META]: { reason: 'scope' } } });
    expect((scope.content[0] as { text: string }).text).toContain("the token's scopes do not include it");
    expect(ran).toBe(false);
  });

  it('path smuggling in arguments: an org holding a slash or a bad thing name is refused as invalid', async () => {
    const tool = guardTool(s.auth, write, () => ({ content: [] }));
    expect(await tool({ org: 'acme/web', repo: 'x', name: 'Doc/a' }, { authInfo: docs })).toMatchObject({
      isError: true,
      _meta: { [TOOL_ERROR_META]: { reason: 'invalid' } },
    });
    expect(await tool({ org: 'acme', repo: 'web', name: 'Doc/../Img/logo' }, { authInfo: docs })).toMatchObject({
      isError: true,
      _meta: { [TOOL_ERROR_META]: { reason: 'invalid' } },
    });
  });

  it('forged authInfo: a copied principal gets a tool error, not a call', async () => {
    const principal = { ...(docs.extra?.['principal'] as object) };
    const tool = guardTool(s.auth, read, () => ({ content: [{ type: 'text' as const, text: 'secret' }] }));
    expect(await tool({ org: 'acme', repo: 'web' }, { authInfo: { ...docs, extra: { principal } } })).toMatchObject({
      isError: true,
      _meta: { [TOOL_ERROR_META]: { error: 'authentication' } },
    });
    expect(await tool({ org: 'acme', repo: 'web' }, {})).toMatchObject({
      isError: true,
      _meta: { [TOOL_ERROR_META]: { error: 'authentication' } },
    });
  });

  it('token leak via arguments: a token pasted as a thing name is not echoed in the refusal', async () => {
    const tool = guardTool(s.auth, write, () => ({ content: [] }));
    const r = await tool({ org: 'acme', repo: 'web', name: `Img/${docs.token}` }, { authInfo: docs });
    expect(r).toMatchObject({ isError: true });
    expect(JSON.stringify(r)).not.toContain(docs.token.split('.')[1]);
  });

  it('a svc-auth error thrown by the handler becomes a tool error with its code', async () => {
    const { NotFoundError } = await import('../../src/errors');
    const tool = guardTool(s.auth, read, () => {
      throw new NotFoundError('no thing Doc/x in acme/web');
    });
    expect(await tool({ org: 'acme', repo: 'web' }, { authInfo: reader })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'not_found: no thing Doc/x in acme/web' }],
      _meta: { [TOOL_ERROR_META]: { error: 'not_found', message: 'no thing Doc/x in acme/web' } },
    });
  });

  it('a policy that is not usable fails when the tool is built', () => {
    const bad: unknown[] = [
      { permission: 'repo:*', resource: () => 'acme/web' },
      { permission: 'repo:read' },
      { permission: 'repo:read', resource: () => 'a', thing: 'Doc/a' },
      { permission: 'repo:read', resource: () => 'a', extra: 1 },
      null,
    ];
    for (const policy of bad) {
      expect(caught(() => guardTool(s.auth, policy as McpToolPolicy<Args>, () => ({ content: [] })))).toMatchObject({ code: 'validation' });
    }
  });

  it('canUseTool hides what the credential can never use: a read-only token never sees a write tool', () => {
    expect(canUseTool(reader, read)).toBe(true);
    expect(canUseTool(reader, write)).toBe(false);
    expect(canUseTool(docs, write)).toBe(true);
    expect(canUseTool(docs.extra?.['principal'] as never, write)).toBe(true);
    expect(canUseTool({ ...docs, extra: { principal: { ...(docs.extra?.['principal'] as object) } } }, read)).toBe(false);
    expect(canUseTool(null as never, read)).toBe(false);
  });
});

describe('guardTool and the audit hook', () => {
  it('a denied tool call is reported as access.denied with the thing name', async () => {
    const seen: unknown[] = [];
    const s = await testAuth({ onEvent: (e) => void seen.push(e) });
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const v = mcpTokenVerifier(s.auth);
    const docs = await v.verifyAccessToken(
      (
        await alice.token.create({
          name: 'docs',
          scopes: [{ resource: 'acme/web', permissions: ['repo:write'], allowedMatches: ['Doc/**'] }],
        })
      ).token,
    );
    const tool = guardTool(s.auth, write, () => ({ content: [] }));
    await tool({ org: 'acme', repo: 'web', name: 'Img/logo' }, { authInfo: docs });
    for (let i = 0; i < 100 && !seen.some((e) => (e as { type: string }).type === 'access.denied'); i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(seen).toContainEqual(
      expect.objectContaining({
        type: 'access.denied',
        resource: 'acme/web',
        permission: 'repo:write',
        thingName: 'Img/logo',
        reason: 'thing',
      }),
    );
  });
});
