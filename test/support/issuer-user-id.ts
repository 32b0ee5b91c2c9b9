/**
 * The user id a trusted issuer's token derives, as docs/identity-providers.md ("Whose user") states
 * it, written out here so the tests hold the service to the documented form rather than to its own
 * code: the issuer's host, port and path, every character but letters, digits, `.` and `-` written
 * `-`, then `_`, then the claim's value.
 */
export function userIdPrefixOf(issuer: string): string {
  const url = new URL(issuer);
  return `${`${url.host}${url.pathname.replace(/\/+$/, '')}`.replace(/[^A-Za-z0-9.-]/g, '-')}_`;
}
