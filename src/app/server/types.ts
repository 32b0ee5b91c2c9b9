/**
 * What the reference server is handed and what it hands back: the store of
 * things it serves (any implementation: the dev instance's is a file), the
 * handlers it mounts by exact path, and what each request tells its access log.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One stored thing.
 *
 * @example
 * ```ts
 * const t: Thing = { name: 'Doc/readme', content: 'hello', commit: 'a3f…', committer: 'svc:default/users/Identity/alice' };
 * ```
 */
export interface Thing {
  readonly name: string;
  readonly content: unknown;
  readonly commit: string;
  readonly committer: string;
}

/**
 * Where the server reads and writes things, by lowercase `org/repo` and the
 * case-sensitive thing name. The server authorizes before each call: a store
 * trusts the names it is given.
 *
 * @example
 * ```ts
 * const things: ThingStore = new FileThingStore('/tmp/svc'); // the dev instance's
 * await things.put('acme/web', 'Doc/readme', 'hello', 'svc:default/users/Identity/alice');
 * ```
 */
export interface ThingStore {
  /** The last commit of a repo; forty zeros for a repo without one. */
  head(repo: string): Promise<string>;
  /** A thing, or `undefined`. */
  get(repo: string, name: string): Promise<Thing | undefined>;
  /** Write a thing as a new commit, which becomes the repo's head. */
  put(repo: string, name: string, content: unknown, committer: string): Promise<Thing>;
}

/**
 * What the access log says of one request besides its method, path and
 * status: who it was (user and token name, or `id:<token id>` for a refused
 * token whose signature verified) and the decision (`allow`, a refusal's
 * reason, an error code).
 *
 * @example
 * ```ts
 * const seen: LogFields = { user: 'alice', token: 'ci', reason: 'scope' };
 * ```
 */
export interface LogFields {
  user?: string;
  token?: string;
  reason?: string;
}

/**
 * A handler for one exact path, which answers its request itself; it may
 * resolve to what the access log should say of it. An error it throws is
 * answered per H2.
 *
 * @example
 * ```ts
 * const ping: PathHandler = async (_req, res) => { res.end('pong'); };
 * ```
 */
export type PathHandler = (req: IncomingMessage, res: ServerResponse) => Promise<LogFields | void>;
