/**
 * One text per refusal reason: /mcp says what the guards say (it may append its renew hint), so an
 * expired token reads the same whichever way it came in.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, type AuthenticationReason } from '../../src/errors';
import { errorAnswer } from '../../src/http';
import { refusalText } from '../../src/mcp/auth-info';

describe('one refusal text per reason: the guards and /mcp say the same (MCP may append its hint)', () => {
  const reasons: AuthenticationReason[] = [
    'missing',
    'malformed',
    'signature',
    'expired',
    'revoked',
    'unknown',
    'type',
    'issuer',
    'audience',
    'not_yet_valid',
    'algorithm',
    'key',
  ];
  it.each(reasons)('%s', (reason) => {
    const guard = errorAnswer(new AuthenticationError(reason)).body.message;
    const mcp = refusalText(reason, 'HINT');
    expect(mcp === guard || mcp === `${guard}: HINT`).toBe(true);
  });
});
