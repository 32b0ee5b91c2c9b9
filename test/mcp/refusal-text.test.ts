/**
 * One text per refusal reason: /mcp says what the guards say (it may append its renew hint), so an
 * expired token reads the same whichever way it came in.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { errorAnswer } from '../../src/http';
import { refusalText } from '../../src/mcp/auth-info';
import { AUTH_REASONS } from '../support/reasons';

describe('one refusal text per reason: the guards and /mcp say the same (MCP may append its hint)', () => {
  it.each(AUTH_REASONS)('%s', (reason) => {
    const guard = errorAnswer(new AuthenticationError(reason)).body.message;
    const mcp = refusalText(reason, 'HINT');
    expect(mcp === guard || mcp === `${guard}: HINT`).toBe(true);
  });
});
