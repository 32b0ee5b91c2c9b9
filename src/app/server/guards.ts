/**
 * The reference server's guards: svc-auth's `requireAuth`, built once per
 * server, one per kind of route. A request's resource and thing, and the
 * fields of its access log line, are found by its request; each guard's
 * `onDecision` fills those fields, so the server learns who was refused and
 * why without running the guard's sequence itself.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { AuthenticationError, SvcAuthError, requireAuth, type Auth, type GuardOptions, type NodeMiddleware } from 'svc-auth';
import type { LogFields } from './types';

/**
 * What one request asks (read by the guards' `resource` and `thing`) and what its access log line says.
 *
 * @example
 * ```ts
 * const ask: Asked = { resource: 'acme/web', thing: 'Doc/readme', seen: {} };
 * ```
 */
export interface Asked {
  resource: string;
  thing?: string | undefined;
  readonly seen: LogFields;
}

/**
 * The guards of one server, and where each request's question is kept.
 *
 * @example
 * ```ts
 * const { reading, ask } = guardsFor(auth);
 * ask(req, seen).resource = 'acme/web';
 * await reading(req, res, () => sendJson(res, 200, { ok: true }));
 * ```
 */
export interface Guards {
  /** Any valid credential. */
  readonly signedIn: NodeMiddleware;
  /** `repo:read` on the request's resource (and thing, when it names one). */
  readonly reading: NodeMiddleware;
  /** `repo:write` on the request's resource and thing. */
  readonly writing: NodeMiddleware;
  /** Start a request: its question, empty until its route is known, logging into `seen`. */
  readonly ask: (req: IncomingMessage, seen: LogFields) => Asked;
}

/**
 * The guards over `auth`.
 *
 * @example
 * ```ts
 * const guards = guardsFor(auth);
 * ```
 */
export function guardsFor(auth: Auth): Guards {
  // A WeakMap, not a field on the request: nothing a client sends can reach it, and it goes with the request.
  const asked = new WeakMap<IncomingMessage, Asked>();
  const of = (req: IncomingMessage): Asked => asked.get(req) as Asked;
  const onDecision: GuardOptions<IncomingMessage>['onDecision'] = (d, req) => {
    const seen = of(req).seen;
    if (d.principal !== null) {
      seen.user = d.principal.userId;
      seen.token = d.principal.tokenName ?? d.principal.kind;
    }
    seen.reason = d.allowed ? 'allow' : d.decision?.allowed === false ? d.decision.reason : reasonOf(d.error);
    // A refused token whose signature verified is logged by its id (never its value).
    if (d.error instanceof AuthenticationError && d.error.tokenId !== undefined) seen.token ??= `id:${d.error.tokenId}`;
  };
  const resource = (req: IncomingMessage): string => of(req).resource;
  const thing = (req: IncomingMessage): string | undefined => of(req).thing;
  return {
    signedIn: requireAuth(auth, { onDecision }),
    reading: requireAuth(auth, { permission: 'repo:read', resource, thing, onDecision }),
    writing: requireAuth(auth, { permission: 'repo:write', resource, thing, onDecision }),
    ask: (req, seen) => {
      const ask: Asked = { resource: '', seen };
      asked.set(req, ask);
      return ask;
    },
  };
}

/**
 * What the access log says of an error: an authentication failure's reason, else our error's code, else `internal`.
 *
 * @example
 * ```ts
 * reasonOf(new NotFoundError('no such endpoint')); // 'not_found'
 * ```
 */
export function reasonOf(err: unknown): string {
  return err instanceof AuthenticationError ? err.reason : err instanceof SvcAuthError ? err.code : 'internal';
}
