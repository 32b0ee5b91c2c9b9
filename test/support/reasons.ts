/**
 * Every `AuthenticationReason`, once, for the tests that walk them all (the answers' texts and
 * statuses, /mcp's refusals). `test/http/answer-body.test.ts` checks that this list is the type.
 */
export const AUTH_REASONS = [
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
  'dpop',
  'bound',
  'dpop_nonce',
] as const;
