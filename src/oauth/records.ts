/**
 * Session records of the authorization server's grants and access tokens.
 * Access tokens are JWTs that oidc-provider does not store, so revoking a
 * refresh token alone would leave them working until they expire. Each grant
 * therefore gets a session record in the `Auth`'s token store (named for its
 * client id, never the client's self-chosen name; described by who, where and
 * what was granted), listed by `client(p).sessions.list()` and `svc auth sessions`), and
 * each access token a child record of it (id = the token's `jti`). svc-auth
 * accepts the server's tokens only with a live record (`trustedIssuerFor`
 * sets `recorded`), and revoking the grant's record revokes its subtree (T6):
 * every access token of the grant fails on its next request.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { UnavailableError } from '../errors';
import { internalsOf, type Auth } from '../service';

/** @internal A new grant, as its record describes it. */
export interface GrantFacts {
  grantId: string;
  accountId: string;
  clientId: string;
  /** The client's self-chosen name: described as such, never the record's name. */
  clientName: string;
  /** Where the browser returns (redirect host), the metadata document's host, or `device`. */
  host: string;
  /** The permissions granted; `'full access'` for the command line's unnarrowed tokens. */
  permissions: readonly string[] | 'full access';
  expiresAt: Date;
}

/** @internal What the server tells the records. */
export interface SessionRecords {
  /** A new grant was approved. */
  granted(grant: GrantFacts): Promise<void>;
  /** An access token of `grantId` is about to be signed; rejects to refuse it (its grant was revoked). */
  accessToken(token: { jti: string; grantId: string | undefined; accountId: string | undefined; exp: number | undefined }): Promise<void>;
  /**
   * A client-credentials token of a service account is about to be signed: records owned by the account
   * (a top-level one, as there is no grant, and the token's under it), so that revoking it holds on the next request.
   */
  machineToken(token: { jti: string; accountId: string; clientId: string; exp: number | undefined }): Promise<void>;
  /** Every token of `grantId` was revoked (refresh token revoked or replayed, code replayed). */
  grantRevoked(grantId: string): Promise<void>;
  /** Is the grant's record live? A grant ended here (sessions.revoke) is not reused without asking again. */
  grantActive(grantId: string): Promise<boolean>;
}

/**
 * A record name (S8's alphabet) from the client id, which the server chose (registration) or
 * verified (a metadata document's URL, named by its host and path): a client cannot choose a
 * name that passes for another's, as it could with its `client_name`.
 */
function nameOf(clientId: string): string {
  const url = URL.parse(clientId);
  const source = url === null || !/^https?:$/.test(url.protocol) ? clientId : `${url.host}${url.pathname}`;
  const plain = source.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return `oauth-${plain === '' ? 'client' : plain}`.slice(0, 64);
}

/** What `sessions.list()` shows of a grant: who (as the app named itself), which client, where, what. */
function describe(g: GrantFacts): string {
  const what = g.permissions === 'full access' ? 'full access' : g.permissions.join(' ') || 'nothing';
  const name = g.clientName.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200);
  return `OAuth grant to "${name}" (name given by the app), client ${g.clientId}, ${g.host}: ${what}`.slice(0, 1024);
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
  const recorder = internalsOf(auth)?.records;
  if (recorder === undefined) throw new UnavailableError('the auth option is not an object createAuth returned');
  return Object.freeze({
    async granted(g: GrantFacts): Promise<void> {
      const result = await recorder.record({
        id: g.grantId,
        userId: g.accountId,
        name: nameOf(g.clientId),
        description: describe(g),
        parentId: null,
        createdAt: sec(Date.now()),
        expiresAt: sec(g.expiresAt.getTime()),
      });
      if (result !== 'ok') throw new UnavailableError('the grant could not be recorded');
      // One grant per client and person: a new consent (another browser, a step-up) ends the
      // earlier grants of the same client, so old grants do not live on for their 14 days. Not
      // for the command line: each machine it signs in from is a session of its own.
      if (g.permissions === 'full access') return;
      const name = nameOf(g.clientId);
      const same = `(name given by the app), client ${g.clientId}, `;
      for (const old of await recorder.activeNamed(g.accountId, name)) {
        // The name is cut at 64 characters: the description says exactly which client it was.
        if (old.id !== g.grantId && old.description?.includes(same) === true) await recorder.revoke(old.id);
      }
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
    async machineToken(t: { jti: string; accountId: string; clientId: string; exp: number | undefined }): Promise<void> {
      if (t.exp === undefined) throw refuse('this token has no expiry');
      // The resource reads a recorded token as a chain of two records (its own under its grant's): a
      // client-credentials token has no grant, so each gets a top-level record of its own to stand under.
      const parentId = randomBytes(32).toString('base64url');
      const common = { userId: t.accountId, createdAt: sec(Date.now()), expiresAt: new Date(t.exp * 1000) };
      const top = await recorder.record({
        ...common,
        id: parentId,
        name: nameOf(t.clientId),
        description: `OAuth client credentials token, client ${t.clientId}`,
        parentId: null,
      });
      const own =
        top === 'ok' ? await recorder.record({ ...common, id: t.jti, name: 'oauth-access-token', description: null, parentId }) : top;
      if (own !== 'ok') throw refuse('the token could not be recorded');
    },
    grantRevoked: (grantId: string) => recorder.revoke(grantId),
    grantActive: (grantId: string) => recorder.active(grantId),
  });
}
