/**
 * What the MCP endpoint's node:http and fetch handlers (handler.ts) share:
 * their options, checked once when the handlers are built, authentication of
 * each request, and the error answers (H2, with the RFC 9728 metadata link).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { AuthenticationError, ValidationError, type IssueInput } from '../errors';
import { guardOnError, errorAnswer, JSON_HEADERS, type Answer, type ErrorAnswerBody } from '../http';
import type { Principal } from '../core/policy';
import { accessTokenFromRequest } from '../tokens';
import { internalsOf, reportDenied } from '../service';
import { authInfoFor, checkAuth, checkRenewHint, checkUrl, refusalText, type AuthInfo } from './auth-info';
import { checkOptions, type Permission } from '../core/vocabulary';
import { protectedResourceMetadata, resourceMetadataUrl, resourceOfMetadataPath, type ProtectedResourceMetadata } from './metadata';
import { checkAllowedOrigins, originAllowed, resourceAt } from './origin';
import { checkMaxBodyBytes } from './body';
import { checkToolPermissions, refuseUnusableTool, type ToolPermissions } from './precheck';
import { checkScopes, scopeValue } from './challenge';
import { OPTION_KEYS, type McpHandlerOptions } from './handler-options';

/** @internal what the handlers learned about a request before its credential: the resource it addresses, or the refusal. */
export type Admission = { resource: string; refusal?: undefined } | { resource?: undefined; refusal: Answer };

const internalAnswer = (): Answer => ({
  status: 500,
  headers: { ...JSON_HEADERS },
  body: { error: 'internal', message: 'internal error' },
});

/**
 * The scope of the first 401 (what a client asks for when it signs in) and
 * the metadata's `scopes_supported`. The first sign-in asks for the least:
 * `scopes` as given, else the read permissions the tools need (all they need
 * when none is a read), so a person approves writes only when a write is
 * made (the 403 step-up). `scopes_supported` lists every permission the tools
 * need, and the given ones.
 */
function signInScopes(
  given: readonly Permission[] | undefined,
  tools: ToolPermissions | undefined,
): { first: string; supported: string[] } {
  const needed = scopeValue([...(tools?.values() ?? [])].map((t) => t.permission));
  const reads = scopeValue(needed.split(' ').filter((p) => p.endsWith(':read')));
  const first = given === undefined ? reads || needed : scopeValue(given);
  return {
    first,
    supported: scopeValue([...needed.split(' '), ...first.split(' ')])
      .split(' ')
      .filter(Boolean),
  };
}

/** @internal what both handler kinds share: option checks, the checks before authentication, authentication, error answers. */
export function core(options: McpHandlerOptions) {
  if (typeof options !== 'object' || options === null)
    throw new ValidationError([{ path: 'options', message: 'expected { auth, server, ... }' }]);
  const issues: IssueInput[] = [];
  if (!checkOptions(options, OPTION_KEYS, 'options', issues)) throw new ValidationError(issues);
  const auth = checkAuth(options.auth);
  if (typeof options.server !== 'function')
    throw new ValidationError([{ path: 'options.server', message: 'must be a function (principal, authInfo) => McpServer' }]);
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new ValidationError([{ path: 'options.onError', message: 'must be a function' }]);
  const clientAddress = options.clientAddress;
  if (clientAddress !== undefined && typeof clientAddress !== 'function')
    throw new ValidationError([{ path: 'options.clientAddress', message: 'must be a function (req) => the peer address' }]);
  const fixed = options.resource === undefined ? undefined : checkUrl(options.resource, 'options.resource');
  const fixedOrigin = fixed === undefined ? undefined : new URL(fixed).origin;
  const allowed = checkAllowedOrigins(options.allowedOrigins, 'options.allowedOrigins');
  const hint = checkRenewHint(options.renewHint, 'options.renewHint');
  const maxBodyBytes = checkMaxBodyBytes(options.maxBodyBytes, 'options.maxBodyBytes');
  const toolIssues: IssueInput[] = [];
  const tools = checkToolPermissions(options.tools, 'options.tools', toolIssues);
  const given = checkScopes(options.scopes, 'options.scopes', toolIssues);
  if (toolIssues.length > 0) throw new ValidationError(toolIssues);
  const { first, supported } = signInScopes(given, tools);
  // Vocabulary words only (checked above), so the attribute can never break the header.
  const scopeAttr = first.length === 0 ? '' : `, scope="${first}"`;
  const meta = (resource: string): ProtectedResourceMetadata =>
    protectedResourceMetadata({
      resource,
      ...(options.authorizationServers === undefined ? {} : { authorizationServers: options.authorizationServers }),
      ...(options.resourceName === undefined ? {} : { resourceName: options.resourceName }),
      scopesSupported: supported,
    });
  // Fail now, not on the first request, when the metadata options are wrong.
  meta(fixed ?? 'http://localhost/mcp');

  const report = guardOnError(options.onError);

  /** 400 for a request whose URL cannot be made: no `Host` a URL can hold, or a target that is not a path. */
  function badTarget(requestOrigin: string | undefined): Answer {
    const issue =
      requestOrigin === undefined
        ? { path: 'headers.host', message: 'missing, or not a host name (with an optional port)' }
        : { path: 'url', message: 'not a path on this host' };
    return failure(new ValidationError([issue]), undefined);
  }

  /**
   * Before any credential is read: where the request was sent (its `Host`,
   * `requestOrigin` undefined when that header could not be one, so a 400
   * rather than a URL nobody can parse in the 401), then where it came from
   * (its `Origin`, 403 against DNS rebinding).
   */
  function admit(requestOrigin: string | undefined, path: string, originHeader: unknown): Admission {
    let resource = fixed;
    if (resource === undefined) {
      resource = requestOrigin === undefined ? undefined : resourceAt(requestOrigin, path);
      if (resource === undefined) return { refusal: badTarget(requestOrigin) };
    }
    if (!originAllowed(originHeader, requestOrigin, fixedOrigin, allowed)) {
      const message = "this Origin may not call the MCP endpoint: it is neither the endpoint's own origin nor in allowedOrigins";
      return { refusal: { status: 403, headers: { ...JSON_HEADERS }, body: { error: 'forbidden', message } } };
    }
    return { resource };
  }

  /** The peer address `clientAddress` gives (`''`, unknown, when it throws or gives none), else `undefined`: the socket's. */
  function peerOf(req: IncomingMessage | Request): string | undefined {
    if (clientAddress === undefined) return undefined;
    try {
      const given: unknown = clientAddress(req);
      return typeof given === 'string' ? given : '';
    } catch {
      return '';
    }
  }

  const nonceFor = internalsOf(auth)?.dpopNonce;

  /** The principal, the SDK's AuthInfo, and the `DPoP-Nonce` its answer carries (RFC 9449 §8.2) when there is one. */
  async function authenticate(
    req: IncomingMessage | Request,
    resource: string,
  ): Promise<{ principal: Principal; info: AuthInfo; nonce: string | undefined }> {
    // Through authenticateRequest, as every guard: a header refused before any
    // token is read (none, another scheme, two tokens) is an auth.failed event
    // like every other refusal. The SDK's AuthInfo carries the token text: the
    // header just accepted, read again.
    const peer = peerOf(req);
    const principal = await (peer === undefined ? auth.authenticateRequest(req) : auth.authenticateRequest(req, { address: peer }));
    return { principal, info: authInfoFor(principal, accessTokenFromRequest(req), resource), nonce: nonceFor?.(req) };
  }

  /** 413 for a body over `maxBodyBytes`, in the H2 shape of a `ValidationError` (issue code `too_big`). */
  function tooLarge(): Answer {
    const answer = errorAnswer(new ValidationError([{ code: 'too_big', path: 'body', message: `is larger than ${maxBodyBytes} bytes` }]));
    return { status: 413, headers: { ...answer.headers }, body: answer.body };
  }

  /** H2, plus `resource_metadata` on a 401 so that MCP clients find the metadata (RFC 9728 section 5.1). Never throws. */
  function failure(err: unknown, resource: string | undefined): Answer {
    try {
      const answer = errorAnswer(err);
      if (answer.status >= 500) report(err);
      const headers = { ...answer.headers };
      const body: ErrorAnswerBody = { ...answer.body };
      if (answer.status === 401) {
        const reason = err instanceof AuthenticationError ? err.reason : 'malformed';
        const text = refusalText(reason, hint);
        // RFC 9728 5.1 and MCP 2025-11-25: where the metadata is, and the scope to ask for.
        const where = resource === undefined ? '' : `${metadataLink(resource)}${scopeAttr}`;
        // RFC 6750 section 3.1: no error code when the request carried no credential at all.
        // A refusal errorAnswer gives the DPoP challenge (a refused proof, a bound token without one, a proof
        // without the nonce: RFC 9449 §7.1, §9) keeps it, and its DPoP-Nonce.
        const dpop = (answer.headers['www-authenticate'] ?? '').startsWith('DPoP ');
        headers['www-authenticate'] = dpop
          ? `${answer.headers['www-authenticate'] ?? ''}${where}`
          : reason === 'missing'
            ? `Bearer realm="svc"${where}`
            : `Bearer realm="svc", error="invalid_token", error_description="${text}"${where}`;
        body.message = text;
      }
      return { status: answer.status, headers, body };
    } catch (e) {
      report(e);
      return internalAnswer();
    }
  }

  /** The `resource_metadata` attribute; none rather than no answer if the URL cannot be made. */
  function metadataLink(resource: string): string {
    try {
      return `, resource_metadata="${resourceMetadataUrl(resource)}"`;
    } catch {
      return '';
    }
  }

  function methodNotAllowed(): Answer {
    // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
    return {
      status: 405,
      headers: { ...JSON_HEADERS, allow: 'POST' },
      body: { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, use POST' }, id: null },
    };
  }

  /** The metadata of the endpoint whose metadata URL is `path` on `requestOrigin`. Needs no credential; never throws. */
  function metadataAnswer(requestOrigin: string | undefined, path: string): Answer {
    let resource = fixed;
    if (resource === undefined) {
      if (requestOrigin === undefined) return badTarget(requestOrigin);
      const rest = resourceOfMetadataPath(path);
      if (rest === undefined)
        return { status: 404, headers: { ...JSON_HEADERS }, body: { error: 'not_found', message: 'no protected resource here' } };
      resource = resourceAt(requestOrigin, rest);
      if (resource === undefined) return badTarget(requestOrigin);
    }
    try {
      return { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'max-age=300' }, body: meta(resource) };
    } catch (err) {
      return failure(err, undefined);
    }
  }

  /**
   * The answer to a `tools/call` of a tool this principal can never use, if
   * `body` is one (see `tools`): the 403 scope challenge when only its OAuth
   * scope refuses, else a tool error.
   */
  function precheck(principal: Principal, body: unknown, resource: string): Answer | undefined {
    const refusal = refuseUnusableTool(tools, principal, body);
    if (refusal === undefined) return undefined;
    if (refusal.kind === 'tool') return { status: 200, headers: { ...JSON_HEADERS }, body: refusal.message };
    // A refusal like guardTool's, for the audit trail, when the call named its resource.
    if (refusal.resource !== undefined) reportDenied(auth, principal, refusal.resource, refusal.permission, 'scope');
    return insufficientScope(refusal.scope, refusal.permission, resource);
  }

  /**
   * 403 with the MCP scope challenge (2025-11-25; RFC 6750 3.1): `scope` is
   * the granted permissions plus the needed one, so a client that replaces its
   * scope with the challenge's (the MCP SDK does) keeps what it had. Every
   * value in the header is a fixed text or a vocabulary word.
   */
  function insufficientScope(scope: string, permission: string, resource: string): Answer {
    const text = `this token was not granted ${permission}: sign in again and allow it`;
    const challenge = `Bearer realm="svc", error="insufficient_scope", scope="${scope}"${metadataLink(resource)}, error_description="${text}"`;
    return {
      status: 403,
      headers: { ...JSON_HEADERS, 'www-authenticate': challenge },
      body: { error: 'forbidden', message: text, reason: 'scope', scope },
    };
  }

  /** The answer to an error that escaped everything else: a 500, the error to `onError`. */
  function internal(err: unknown): Answer {
    report(err);
    return internalAnswer();
  }

  return {
    admit,
    authenticate,
    failure,
    methodNotAllowed,
    metadataAnswer,
    internal,
    tooLarge,
    precheck,
    maxBodyBytes,
    build: options.server,
  };
}
