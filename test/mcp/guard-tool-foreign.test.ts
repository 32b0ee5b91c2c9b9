/**
 * Issue 18, item 5, through the MCP surface: `guardTool(authA, …)` given the
 * `AuthInfo` that another instance's verifier produced (a principal of `authB`)
 * refuses the call as `invalid`; the handler never runs.
 */
import { describe, expect, it } from 'vitest';
import { guardTool, mcpTokenVerifier, TOOL_ERROR_META, type McpToolPolicy } from '../../src/mcp';
import { testAuth } from '../support/auth';

type Args = { org: string; repo: string };
const admin: McpToolPolicy<Args> = { permission: 'repo:admin', resource: (a) => `${a.org}/${a.repo}` };

describe('guardTool and a principal of another Auth (issue 18, item 5)', () => {
  it("another Auth's principal gets an invalid tool error, although its own Auth would allow the call", async () => {
    const a = await testAuth();
    const b = await testAuth();
    b.roles.set('mallory', { orgs: { acme: 'owner' } });
    const onB = await b.auth.authenticate(await b.auth.issueSession('mallory'));
    const { token } = await b.auth.client(onB).token.create({ name: 'ci' });
    const authInfo = await mcpTokenVerifier(b.auth).verifyAccessToken(token);
    let ran = 0;
    const handler = () => {
      ran++;
      return { content: [{ type: 'text' as const, text: 'admin done' }] };
    };
    expect(await guardTool(b.auth, admin, handler)({ org: 'acme', repo: 'web' }, { authInfo })).toEqual({
      content: [{ type: 'text', text: 'admin done' }],
    });
    expect(await guardTool(a.auth, admin, handler)({ org: 'acme', repo: 'web' }, { authInfo })).toMatchObject({
      isError: true,
      _meta: { [TOOL_ERROR_META]: { error: 'forbidden', permission: 'repo:admin', resource: 'acme/web', reason: 'invalid' } },
    });
    expect(ran).toBe(1);
  });
});
