/**
 * Session records of the authorization server's grants and access tokens.
 * Access tokens are JWTs that oidc-provider does not store, so revoking a
 * refresh token alone would leave them working until they expire. Each grant
 * therefore gets a session record, and each access token a child record of
 * it (id = the token's `jti`); svc-auth accepts the server's tokens only with
 * a live record (a recorded trusted issuer), and revoking the grant's record
 * revokes its whole subtree (T6): every access token of the grant fails on its
 * next request.
 * @module
 */

/** @internal What the server tells the records. */
export interface SessionRecords {
  /** A new grant was approved. */
  granted(grant: { grantId: string; accountId: string; clientId: string; clientName: string; expiresAt: Date }): Promise<void>;
  /** An access token of `grantId` is about to be signed; rejects to refuse it (its grant was revoked). */
  accessToken(token: { jti: string; grantId: string | undefined; accountId: string | undefined; exp: number | undefined }): Promise<void>;
  /** Every token of `grantId` was revoked. */
  grantRevoked(grantId: string): Promise<void>;
}

/**
 * @internal No records: until svc-auth can verify the server's tokens against
 * records (the recorded trusted issuer), nothing is written.
 */
export const NO_RECORDS: SessionRecords = Object.freeze({
  granted: () => Promise.resolve(),
  accessToken: () => Promise.resolve(),
  grantRevoked: () => Promise.resolve(),
});
