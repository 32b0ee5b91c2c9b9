/**
 * Errors and denials -> HTTP status, headers and JSON body (rule H2).
 *
 * Framework-agnostic: these functions only compute the answer; `respond.ts`
 * writes it to a fetch `Response` or a node `ServerResponse`.
 * @module
 */
import {
  AuthenticationError,
  ForbiddenError,
  SvcAuthError,
  ValidationError,
  type AuthenticationReason,
  type IssueCode,
  type ValidationIssue,
} from '../errors';
import type { Decision } from '../core/policy';
import { DPOP_ALGORITHMS, isHeaderProblem, isNonceText } from '../tokens';
import type { ErrorAnswer, ErrorAnswerBody, ErrorAnswerReason } from './answer';
import { challenge, type ErrorAnswerOptions } from './realm';

// The answer types live with the one answer (answer.ts); the modules that build answers import them from here.
export type { ErrorAnswer, ErrorAnswerBody } from './answer';

export { DEFAULT_REALM, isRealm, type ErrorAnswerOptions } from './realm';

// Fixed texts rather than err.message: RFC 6750 error_description must be a
// plain quoted-string, and a fixed text can never carry a token by accident.
// The one table of refusal texts: the guards, the adapters and /mcp (which
// may append its renew hint) all say the same thing for the same reason.
const AUTH_TEXT: Readonly<Record<AuthenticationReason, string>> = {
  missing: 'a bearer token is required',
  malformed: 'the token is malformed',
  signature: 'the token is not valid',
  expired: 'the token has expired',
  revoked: 'the token has been revoked',
  unknown: 'the token is not known',
  type: 'this kind of token is not accepted here',
  issuer: 'the token is not from a trusted issuer',
  audience: 'the token was not issued for this service',
  not_yet_valid: 'the token is not valid yet',
  algorithm: 'the token is signed with an algorithm not accepted here',
  key: "the token's signing key is not known",
  dpop: 'the DPoP proof is not valid',
  bound: 'the token is bound to a key: send it with the DPoP scheme and a proof',
  dpop_nonce: "the DPoP proof needs this resource's current nonce: sign it again with the DPoP-Nonce given",
};

/** @internal the one text of a refusal `reason` (an unknown reason reads as `malformed`). */
export function refusalTextOf(reason: AuthenticationReason): string {
  return Object.hasOwn(AUTH_TEXT, reason) ? AUTH_TEXT[reason] : AUTH_TEXT.malformed;
}

// Anything shaped like a JWT (base64url JSON header, three parts). Our own
// messages should never hold one; this is the belt to those braces.
const JWT_LIKE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?/g;

// Our messages are short; the caps bound the answer, and the scrub's cost, on hostile input.
const MAX_TEXT = 1024;
const MAX_ISSUES = 100;
const MAX_PATH = 32;

// A code outside the closed set (an issue built by hand) is answered as `custom`, never echoed.
const ISSUE_CODES: Record<IssueCode, true> = {
  invalid_type: true,
  invalid_value: true,
  unrecognized_keys: true,
  too_big: true,
  too_small: true,
  duplicate: true,
  custom: true,
};

function scrub(text: string): string {
  return (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text).replace(JWT_LIKE, '[redacted]');
}

// The same shape as `ValidationError.issues` (one shape in every answer of every adapter),
// each piece of text scrubbed and capped like a message.
function issueOf(i: ValidationIssue): ValidationIssue {
  const code = typeof i.code === 'string' && Object.hasOwn(ISSUE_CODES, i.code) ? i.code : 'custom';
  const path = Array.isArray(i.path) ? i.path.slice(0, MAX_PATH).map((s) => (typeof s === 'number' ? s : scrub(String(s)))) : [];
  return { code, path, pathText: scrub(String(i.pathText)), message: scrub(String(i.message)) };
}

function baseHeaders(): Record<string, string> {
  return { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
}

// Answers this module built, so that `errorAnswer(decisionError(d))` (and so
// `errorResponse`/`sendError` given a decision's answer) passes them through
// instead of treating them as someone else's error. A look-alike object is not
// one of ours and still gets the generic 500.
const OURS = new WeakSet<ErrorAnswer>();

function answer(status: ErrorAnswer['status'], body: ErrorAnswerBody, extra?: Record<string, string>): ErrorAnswer {
  const made: ErrorAnswer = { status, headers: { ...baseHeaders(), ...extra }, body };
  OURS.add(made);
  return made;
}

// The header itself is wrong (another scheme, two tokens): a different text
// from a well-formed header whose token is bad, same reason code.
const HEADER_TEXT = 'the Authorization header is not a valid bearer credential';

const DPOP_ERRORS: Partial<Record<AuthenticationReason, string>> = {
  dpop: 'invalid_dpop_proof',
  bound: 'invalid_token',
  dpop_nonce: 'use_dpop_nonce',
};

function authAnswer(
  given: AuthenticationReason,
  options: ErrorAnswerOptions | undefined,
  headerProblem = false,
  nonce?: unknown,
): ErrorAnswer {
  const reason: AuthenticationReason = Object.hasOwn(AUTH_TEXT, given) ? given : 'malformed';
  const text = reason === 'malformed' && headerProblem ? HEADER_TEXT : AUTH_TEXT[reason];
  const realm = challenge(options);
  // RFC 6750 §3.1: no error code when the request carried no credential at all.
  let value = reason === 'missing' ? realm : `${realm}, error="invalid_token", error_description="${text}"`;
  // RFC 9449 §7.1 and §9: a refused proof, a bound token without one, or a proof without the resource's
  // nonce is answered with the DPoP challenge and its algorithms; the nonce rides in DPoP-Nonce.
  const error = DPOP_ERRORS[reason];
  const extra: Record<string, string> = {};
  if (error !== undefined) {
    value = `DPoP${realm.slice('Bearer'.length)}, algs="${DPOP_ALGORITHMS.join(' ')}", error="${error}", error_description="${text}"`;
    // A nonce that is no NQCHAR text (an error built by hand) is not sent.
    if (reason === 'dpop_nonce' && isNonceText(nonce)) extra['dpop-nonce'] = nonce;
  }
  return answer(401, { error: 'authentication', message: text, reason }, { 'www-authenticate': value, ...extra });
}

function forbiddenAnswer(message: string, options: ErrorAnswerOptions | undefined, reason?: ErrorAnswerReason, why?: string): ErrorAnswer {
  const body: ErrorAnswerBody = { error: 'forbidden', message };
  if (reason !== undefined) body.reason = reason;
  const described = why === undefined ? '' : `, error_description="${quotable(why)}"`;
  return answer(403, body, { 'www-authenticate': `${challenge(options)}, error="insufficient_scope"${described}` });
}

// RFC 6750 §3: error_description holds %x20-21 / %x23-5B / %x5D-7E only; an org's message
// is an operator's text, so the header gets `'` or `?` for the rest, the body the whole text.
function quotable(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}

/** An org's policy refusal (G2): 403 with its message in the body and in the challenge. */
function policyAnswer(message: unknown, options: ErrorAnswerOptions | undefined): ErrorAnswer {
  const text = typeof message === 'string' && message.length > 0 ? scrub(message) : POLICY_TEXT;
  return forbiddenAnswer(text, options, 'policy', text);
}

const POLICY_TEXT = "an organization's policy does not allow this token there";

// An answer built for one realm, passed through for another (a guard with its
// own realm given `decisionError(d)`): same answer, the challenge re-realmed.
function reRealm(made: ErrorAnswer, options: ErrorAnswerOptions | undefined): ErrorAnswer {
  const value = made.headers['www-authenticate'];
  if (value === undefined || options?.realm === undefined) return made;
  const scheme = value.startsWith('DPoP ') ? 'DPoP' : 'Bearer';
  const rest = value.replace(/^(?:Bearer|DPoP) realm="[^"]*"/, '');
  const realm = challenge(options).slice('Bearer'.length);
  return answer(made.status, made.body, { ...made.headers, 'www-authenticate': `${scheme}${realm}${rest}` });
}

/**
 * Maps any thrown value to an HTTP answer (H2).
 *
 * | error | status | `WWW-Authenticate` |
 * |---|---|---|
 * | `AuthenticationError` reason `missing` | 401 | `Bearer realm="svc"` |
 * | `AuthenticationError` reason `dpop` | 401 | `DPoP realm="svc", algs="EdDSA ES256 …", error="invalid_dpop_proof", error_description="…"` |
 * | `AuthenticationError` reason `bound` | 401 | `DPoP realm="svc", algs="EdDSA ES256 …", error="invalid_token", error_description="…"` |
 * | `AuthenticationError` reason `dpop_nonce` | 401, `DPoP-Nonce: <nonce>` | `DPoP realm="svc", algs="EdDSA ES256 …", error="use_dpop_nonce", error_description="…"` |
 * | other `AuthenticationError` | 401 | `Bearer realm="svc", error="invalid_token", error_description="…"` |
 * | `ForbiddenError` | 403 | `Bearer realm="svc", error="insufficient_scope"` |
 * | `ForbiddenError` with reason `ip` | 403 (body `reason: 'ip'`) | |
 * | `ForbiddenError` with reason `policy` | 403 (body `reason: 'policy'`) | `Bearer realm="svc", error="insufficient_scope", error_description="…"` |
 * | `ValidationError` | 400 (body has `issues`) | |
 * | `NotFoundError` / `ConflictError` | 404 / 409 | |
 * | `UnavailableError` | 503, `Retry-After: 1` | |
 * | anything else | 500, generic message | |
 *
 * An error that is not svc-auth's is answered with a fixed text: its message
 * or stack could hold secrets. Log it yourself if you need it. An answer this
 * module built (for example by `decisionError`) is returned as it is, so
 * `errorResponse(decisionError(d))` and `sendError(res, decisionError(d))` work.
 * `options.realm` names the realm of the challenge (default `svc`).
 *
 * @example
 * ```ts
 * import { errorAnswer, AuthenticationError } from 'svc-auth';
 * const { status, headers, body } = errorAnswer(new AuthenticationError('expired'));
 * // 401, headers['www-authenticate'] = 'Bearer realm="svc", error="invalid_token", error_description="the token has expired"'
 * // body = { error: 'authentication', message: 'the token has expired', reason: 'expired' }
 * ```
 */
export function errorAnswer(err: unknown, options?: ErrorAnswerOptions): ErrorAnswer {
  try {
    if (typeof err === 'object' && err !== null && OURS.has(err as ErrorAnswer)) return reRealm(err as ErrorAnswer, options);
    return ownAnswer(err, options) ?? internal();
  } catch {
    // A hostile error object (throwing getters) still gets an answer.
    return internal();
  }
}

function ownAnswer(err: unknown, options: ErrorAnswerOptions | undefined): ErrorAnswer | undefined {
  if (!(err instanceof SvcAuthError)) return undefined;
  if (err instanceof AuthenticationError) return authAnswer(err.reason, options, isHeaderProblem(err), err.dpopNonce);
  const message = scrub(String(err.message));
  switch (err.code) {
    case 'authentication':
      return authAnswer('malformed', options);
    case 'forbidden':
      // A token used from an address it may not be used from: a 403 with its reason, and no
      // insufficient_scope challenge (no token with more scope would change the answer).
      if (err instanceof ForbiddenError && err.reason === 'ip') return answer(403, { error: 'forbidden', message, reason: 'ip' });
      if (err instanceof ForbiddenError && err.reason === 'policy') return policyAnswer(message, options);
      return forbiddenAnswer(message, options);
    case 'validation': {
      const body: ErrorAnswerBody = { error: 'validation', message };
      if (err instanceof ValidationError) {
        body.issues = err.issues.slice(0, MAX_ISSUES).map(issueOf);
      }
      return answer(400, body);
    }
    case 'not_found':
      return answer(404, { error: 'not_found', message });
    case 'conflict':
      return answer(409, { error: 'conflict', message });
    case 'unavailable':
      return answer(503, { error: 'unavailable', message }, { 'retry-after': '1' });
    default:
      return undefined;
  }
}

function internal(): ErrorAnswer {
  return answer(500, { error: 'internal', message: 'internal error' });
}

const DENY_TEXT: Readonly<Record<'role' | 'scope' | 'thing', string>> = {
  role: "the user's role does not allow this operation",
  scope: "the token's scopes do not allow this operation",
  thing: "the token's scopes do not allow this thing name",
};

/**
 * Maps a denied `Decision` of `authorize` to an HTTP answer (H2): `invalid` is a 400 `validation` answer (no valid
 * resource, permission or thing); `role`, `scope` and `thing` a 403 `forbidden` answer with
 * `error="insufficient_scope"` and the reason in the body; `policy` (G2) the same 403 with the decision's `message`
 * in the body and as the challenge's `error_description`. Anything else that is not an allow is a 403: fail closed.
 *
 * @throws ValidationError when given an allowing decision: there is nothing to refuse.
 *
 * @example
 * ```ts
 * import { decisionError } from 'svc-auth';
 * const d = auth.authorize(principal, 'acme/web', 'repo:write', 'Doc/readme');
 * if (!d.allowed) {
 *   const { status, headers, body } = decisionError(d); // 403, body.reason 'scope'
 * }
 * ```
 */
export function decisionError(decision: Decision, options?: ErrorAnswerOptions): ErrorAnswer {
  let allowed: unknown;
  let reason: unknown;
  let message: unknown;
  try {
    allowed = decision.allowed;
    reason = (decision as { reason?: unknown }).reason;
    if (reason === 'policy') message = (decision as { message?: unknown }).message;
  } catch {
    return forbiddenAnswer('forbidden', options);
  }
  if (allowed === true) throw new ValidationError([{ path: 'decision', message: 'an allowing decision is not an error' }]);
  if (reason === 'invalid') {
    return answer(400, {
      error: 'validation',
      message: 'the request does not name a valid resource, permission or thing',
      reason: 'invalid',
    });
  }
  if (reason === 'policy') return policyAnswer(message, options);
  if (typeof reason === 'string' && Object.hasOwn(DENY_TEXT, reason)) {
    return forbiddenAnswer(DENY_TEXT[reason as keyof typeof DENY_TEXT], options, reason as keyof typeof DENY_TEXT);
  }
  return forbiddenAnswer('forbidden', options);
}
