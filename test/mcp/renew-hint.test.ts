/**
 * Defect (issue 28, item 16): a revoked OAuth access token's (or session's) 401 told the
 * person to "create a new one with `svc token create`", which makes a PAT, not a sign-in.
 * The default next step now says to sign in again, and names the CLI for PATs only.
 */
import { describe, expect, it } from 'vitest';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { DEFAULT_RENEW_HINT, mcpTokenVerifier } from '../../src/mcp';
import { testAuth } from '../support/auth';
import { rejection } from '../support/errors';

describe('the next step of a refused token on /mcp', () => {
  it('a revoked session says: sign in again (before any svc token create)', async () => {
    const s = await testAuth();
    const session = await s.auth.issueSession('alice');
    await s.auth.revokeToken((await s.auth.authenticate(session)).tokenId as string);
    const err = await rejection(mcpTokenVerifier(s.auth).verifyAccessToken(session));
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect((err as Error).message).toMatch(/^the token has been revoked: sign in again; for a personal access token, create a new one/);
    expect(DEFAULT_RENEW_HINT.startsWith('sign in again')).toBe(true);
  });
});
