/**
 * Session records of the authorization server's grants and access tokens.
 * Access tokens are JWTs that oidc-provider does not store, so revoking a
 * refresh token alone would leave them working until they expire. Each grant
 * therefore gets a session record in the `Auth`'s token store (named for its
 * client, listed by `client(p).sessions.list()` and `svc auth sessions`), and
 * each access token a child record of it (id = the token's `jti`). svc-auth
 * accepts the server's tokens only with a live record (`trustedIssuerFor`
 * sets `recorded`), and revoking the grant's record revokes its subtree (T6):
 * every access token of the grant fails on its next request.
 * @module
 */
import { UnavailableError } from '../errors';
import { sessionRecordsOf, type Auth } from '../service';

/** @internal What the server tells the records. */
export interface SessionRecords {
  /** A new grant was approved. */
  granted(grant: { grantId: string; accountId: string; clientId: string; clientName: string; expiresAt: Date }): Promise<void>;
  /** An access token of `grantId` is about to be signed; rejects to refuse it (its grant was revoked). */
  accessToken(token: { jti: string; grantId: string | undefined; accountId: string | undefined; exp: number | undefined }): Promise<void>;
  /** Every token of `grantId` was revoked (refresh token revoked or replayed, code replayed). */
  grantRevoked(grantId: string): Promise<void>;
  /** Is the grant's record live? A grant ended here (sessions.revoke) is not reused without asking again. */
  grantActive(grantId: string): Promise<boolean>;
}

/** A record name (S8's alphabet) from a client's name: `oauth-` and what is left of it. */
function nameOf(clientName: string): string {
  const plain = clientName.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return `oauth-${plain === '' ? 'client' : plain}`.slice(0, 64);
}

const sec = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

/**
 * @internal The records of `auth`. `refuse(message)` makes the error a refused access
 * token is answered with (`invalid_grant`); `dropGrant` forgets the server's own grant, so
 * that the next authorization asks the person again instead of reusing a revoked grant.
 */
export function sessionRecords(
  auth: Auth,
  refuse: (message: string) => Error,
  dropGrant: (grantId: string) => Promise<void>,
): SessionRecords {
  const recorder = sessionRecordsOf(auth);
  if (recorder === undefined) throw new UnavailableError('the auth option is not an object createAuth returned');
  return Object.freeze({
    async granted(g: { grantId: string; accountId: string; clientId: string; clientName: string; expiresAt: Date }): Promise<void> {
      const result = await recorder.record({
        id: g.grantId,
        userId: g.accountId,
        name: nameOf(g.clientName),
        description: `OAuth grant to ${g.clientName} (client ${g.clientId})`.slice(0, 1024),
        parentId: null,
        createdAt: sec(Date.now()),
        expiresAt: sec(g.expiresAt.getTime()),
      });
      if (result !== 'ok') throw new UnavailableError('the grant could not be recorded');
    },
    async accessToken(t: {
      jti: string;
      grantId: string | undefined;
      accountId: string | undefined;
      exp: number | undefined;
    }): Promise<void> {
      if (t.grantId === undefined || t.accountId === undefined || t.exp === undefined) throw refuse('this token has no grant on record');
      const result = await recorder.record({
        id: t.jti,
        userId: t.accountId,
        name: 'oauth-access-token',
        description: null,
        parentId: t.grantId,
        createdAt: sec(Date.now()),
        expiresAt: new Date(t.exp * 1000),
      });
      if (result === 'parent_inactive') {
        // The grant's record was revoked (sessions.revoke, svc auth sessions, revokeToken) or is gone.
        await dropGrant(t.grantId);
        throw refuse('the grant was revoked: authorize again');
      }
    },
    grantRevoked: (grantId: string) => recorder.revoke(grantId),
    grantActive: (grantId: string) => recorder.active(grantId),
  });
}
