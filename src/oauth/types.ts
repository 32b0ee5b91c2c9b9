/**
 * Contract of `svc-auth/oauth`: the options of `createAuthorizationServer` and
 * what it returns.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Permission } from '../core/vocabulary';
import type { Auth } from '../service';
import type { OAuthStorage } from './storage';

/**
 * Sign-in by picking a user from a list (a dev instance, tests): the page
 * shows a select of `users()` (a text input when the list is empty) and no
 * password. Anyone who reaches the page can be anyone on the list: never use
 * it on a server other people can reach.
 *
 * @example
 * ```ts
 * const signIn: PickUserSignIn = { users: () => ['alice', 'bob'] };
 * ```
 */
export interface PickUserSignIn {
  /** The user ids to choose from (at most 500 are shown). A posted id must be one of them when the list is not empty. */
  users(): readonly string[] | Promise<readonly string[]>;
}

/**
 * Sign-in by your own server's login: `currentUser(req)` says which user the
 * browser is signed in as (from your session cookie), or `undefined`; then the
 * browser is sent to `loginUrl(returnTo)`, and your login sends it back to
 * `returnTo` once it is signed in.
 *
 * @example
 * ```ts
 * const signIn: OwnSignIn = {
 *   currentUser: (req) => mySessions.userOf(req.headers.cookie),
 *   loginUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
 * };
 * ```
 */
export interface OwnSignIn {
  /** The signed-in user's id, or `undefined`. Must come from your own authentication, never from request parameters. */
  currentUser(req: IncomingMessage): string | undefined | Promise<string | undefined>;
  /**
   * Where to send a browser that is not signed in. `returnTo` is a path on this server
   * (`/oauth/interaction/…`, starting with one `/`), so a login that only returns to its own
   * paths (an open-redirect filter) accepts it.
   */
  loginUrl(returnTo: string): string;
}

/**
 * How the person at the browser is signed in: {@link PickUserSignIn} or {@link OwnSignIn}.
 *
 * @example
 * ```ts
 * const signIn: SignInOptions = { users: () => ['alice'] };
 * ```
 */
export type SignInOptions = PickUserSignIn | OwnSignIn;

/**
 * Which Client ID Metadata Documents are accepted.
 *
 * @example
 * ```ts
 * const docs: MetadataDocumentOptions = { allow: ['https://vscode.dev', 'https://claude.ai'] };
 * ```
 */
export interface MetadataDocumentOptions {
  /**
   * The sites whose documents are accepted: a list of origins (`https://host[:port]`),
   * or a function of the document URL. Default: any https URL on a public address.
   */
  allow?: readonly string[] | ((url: URL) => boolean);
  /** Also accept `http://` documents on loopback addresses (a dev instance). Default `false`. */
  allowLoopback?: boolean;
  /** Largest document, in bytes. Default 5 120; 256 to 65 536. */
  maxBytes?: number;
  /** Deadline of one fetch, in milliseconds. Default 2 500; 100 to 10 000. */
  timeoutMs?: number;
}

/**
 * Which clients may ask for tokens. A client is public (no secret: the default
 * at registration, and every metadata document client unless it names its keys)
 * or confidential (a secret, shown once at registration and stored hashed), and
 * uses the authorization code with PKCE (S256, also for confidential clients)
 * or the device flow.
 *
 * @example
 * ```ts
 * const clients: ClientPolicy = { registration: false, metadataDocuments: { allow: ['https://vscode.dev'] } };
 * ```
 */
export interface ClientPolicy {
  /** Dynamic client registration (RFC 7591) at `<prefix>/register`. Default `true`. */
  registration?: boolean;
  /**
   * Registrations one client address may make in a rolling hour (the socket's address, or with
   * `trustProxy` the last `X-Forwarded-For` hop); more are answered 429 with `Retry-After`.
   * Counted in this process. Default 30; 1 to 100 000.
   */
  registrationsPerHour?: number;
  /**
   * Sign-ins one client address may start in a rolling minute, counted apart at `<prefix>/authorize`
   * and at device authorization (the same address rule as `registrationsPerHour`): each one stores
   * an interaction, so a flood would fill the storage. More are answered 429 with `Retry-After` (a
   * page at `/authorize`, JSON for the device). Counted in this process. Default 30; 1 to 10 000.
   */
  authorizationsPerMinute?: number;
  /**
   * Seconds a registered client is kept while no one has approved it: a client is kept as long as
   * its newest grant, and a registration never used is forgotten after this. Default 86 400 (a day);
   * 600 to 7 776 000.
   */
  unusedClientTtlSec?: number;
  /** Client ID Metadata Documents: `true` (default), `false`, or which ones. */
  metadataDocuments?: boolean | MetadataDocumentOptions;
  /**
   * Register the first-party public client of the `svc` command line, client id `svc-cli`
   * (device flow and refresh only, no redirect URIs), whose access tokens are for the API
   * resource (the issuer) and carry no `scope` claim: like an interactive session, not
   * narrowed, limited by the user's roles, so `svc` can manage tokens with it. The consent
   * page says it asks for full access. Every other client's tokens always carry a `scope`.
   * Default `false` (`svc serve` turns it on).
   */
  cli?: boolean;
}

/**
 * Your own look and words on the sign-in, consent and device pages (the product name is the
 * `name` option). Checked when the server is built; every text is HTML-escaped where shown.
 *
 * @example
 * ```ts
 * const pages: PageOptions = {
 *   logoUrl: 'https://notes.acme.example/logo.svg',
 *   colour: '#0a7d4f',
 *   permissionText: { 'repo:read': 'Read your notebooks and the notes in them' },
 * };
 * ```
 */
export interface PageOptions {
  /** A logo shown beside the name: an https URL (http only on a loopback host); the pages' CSP allows its origin for images. */
  logoUrl?: string;
  /** The accent colour of buttons and ticks: a CSS hex colour (`#rgb` or `#rrggbb`). Default a blue. */
  colour?: string;
  /** The text of each permission on the pages, 1 to 120 printable characters each; the others keep theirs. */
  permissionText?: Partial<Record<Permission, string>>;
}

/**
 * Options of `createAuthorizationServer`. Checked when the server is built.
 *
 * @example
 * ```ts
 * import { MemoryOAuthStorage, type AuthorizationServerOptions } from 'svc-auth/oauth';
 * const options: AuthorizationServerOptions = {
 *   auth,
 *   issuer: 'http://127.0.0.1:8080',
 *   signIn: { users: () => ['alice'] },
 *   storage: new MemoryOAuthStorage(),
 * };
 * ```
 */
export interface AuthorizationServerOptions {
  /** The `Auth` whose users sign in here and whose servers accept the tokens. */
  auth: Auth;
  /** The server's issuer: an origin (`https://host[:port]`, no path), `http` only on a loopback host. */
  issuer: string;
  /** How a person signs in. */
  signIn: SignInOptions;
  /** Where grants, clients and the server's keys live: `MemoryOAuthStorage` for tests, `PostgresOAuthStorage` for servers. */
  storage: OAuthStorage;
  /** Which clients are accepted. */
  clients?: ClientPolicy;
  /**
   * The resources (RFC 8707) tokens are issued for; a token's `aud` is the one asked for.
   * Absolute URLs on the issuer's origin. Default `[<issuer>/mcp, <issuer>]`; the first is
   * used when a request names none. `<resource>/` is read as `<resource>`.
   */
  resources?: readonly string[];
  /** Access token lifetime in seconds. Default 3 600; 60 to 3 600. */
  accessTokenTtlSec?: number;
  /** Refresh token lifetime in seconds (each refresh issues a new one). Default 1 209 600 (14 days); 3 600 to 7 776 000 (90 days). */
  refreshTokenTtlSec?: number;
  /** Seconds a device should wait between polls (RFC 8628). Default 5; 1 to 60. */
  devicePollIntervalSec?: number;
  /** The name the pages show (your product's). Default `'svc'`. At most 40 characters. */
  name?: string;
  /** A logo, an accent colour and the words of each permission on the pages. */
  pages?: PageOptions;
  /** Where the server's endpoints live. Default `'/oauth'`. */
  pathPrefix?: string;
  /** Believe `X-Forwarded-Proto` and `X-Forwarded-For` (behind a TLS-terminating proxy). Default `false`. */
  trustProxy?: boolean;
  /** Receives one line per server error (never a token or a secret). Default: none. */
  log?: (line: string) => void;
}

/**
 * An authorization server, ready to be mounted on a node:http server (or
 * Express, Fastify, Hono on node: see docs/oauth.md).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * // Alone: its paths, and 404 to the rest. In Express or Connect: app.use(oauth.node).
 * const server = createServer(oauth.node);
 * // Beside your own routes: handle() resolves false for a path that is not the server's.
 * const both = createServer(async (req, res) => {
 *   if (await oauth.handle(req, res)) return;
 *   res.statusCode = 404;
 *   res.end();
 * });
 * ```
 */
export interface AuthorizationServer {
  /** The issuer, as given. */
  readonly issuer: string;
  /** The RFC 8414 metadata URL. */
  readonly metadataUrl: string;
  /** The paths it answers: the two metadata paths, exactly, and everything under `pathPrefix`. */
  readonly paths: {
    /** The metadata paths, answered exactly. */
    readonly exact: readonly string[];
    /** Every path that starts with it (`/oauth/`). */
    readonly prefix: string;
  };
  /** Is `path` (without the query) one of the server's? */
  owns(path: string): boolean;
  /**
   * Answer `req` when its path is one of the server's and resolve `true`; resolve `false`
   * (writing nothing) otherwise. Never rejects: a failure is answered with `server_error`.
   */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /**
   * The server's public signing keys (its JWKS, without private members), for an `Auth` in the
   * same process: `trustedIssuerFor({ issuer, resource, jwks: server.publicJwks() })` verifies
   * its tokens without fetching them over HTTP.
   */
  publicJwks(): { keys: Record<string, unknown>[] };
  /**
   * The endpoint's one shape for node, usable as it is by node:http (`createServer(oauth.node)`),
   * Express and Connect (`app.use(oauth.node)`): the server's paths are answered; another path goes
   * to `next()` when one is given, else is a 404. A body a parser already read is taken from
   * `req.body`. Never rejects.
   */
  node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void>;
}
