/**
 * `svc auth login --workload-token`: a CI job's own identity token exchanged
 * at the server's token endpoint by the RFC 7523 JWT bearer grant, as the
 * workloads' client `svc-workload`, for a short-lived token of the service
 * account the server's rules name. No secret is stored on the job's side; the
 * answer is read like every answer of another party (bounded, JSON only).
 * @module
 */
import { AuthenticationError, UnavailableError } from '../../../errors';
import { JWT_BEARER_GRANT, WORKLOAD_CLIENT_ID } from '../../../oauth';
import { requestJson } from './http';
import type { ServerEndpoints } from './server';

/** What the server gave for a workload token: a bearer value, its lifetime, and its scope as the server wrote it. */
export interface WorkloadTokens {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly scope: string | undefined;
}

/** A server's words, made safe to print: one line, at most 300 characters. */
const words = (v: unknown): string => (typeof v === 'string' ? v.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 300) : '');

/**
 * Exchange `assertion` (the workload's identity token) at the server of `endpoints`.
 *
 * @throws AuthenticationError reason `issuer` when the server does not take workload tokens, `unknown` when it
 * refused this one (its description says why: which claims did not match, a replay, a disabled account).
 * @throws UnavailableError when the server cannot be reached or its answer is not a token.
 * @example
 * ```ts
 * const got = await workloadSignIn(await discover(url, '--server'), process.env.ACTIONS_ID_TOKEN!);
 * ```
 */
export async function workloadSignIn(endpoints: ServerEndpoints, assertion: string): Promise<WorkloadTokens> {
  if (!endpoints.grantTypes.includes(JWT_BEARER_GRANT)) {
    throw new AuthenticationError(
      'issuer',
      `${endpoints.issuer} does not take workload tokens (its metadata lists no jwt-bearer grant): start svc serve with --trust-workloads, or give the server trustedWorkloads`,
    );
  }
  const form = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, client_id: WORKLOAD_CLIENT_ID, assertion, resource: endpoints.issuer });
  const answer = await requestJson(endpoints.token, 'the token endpoint', form);
  const body = answer.body;
  if (answer.status === 400 || answer.status === 401) {
    const error = words(body?.error) || `HTTP ${answer.status}`;
    const why = words(body?.error_description);
    throw new AuthenticationError('unknown', `${endpoints.issuer} refused the workload token (${error})${why === '' ? '' : `: ${why}`}`);
  }
  const token = body?.access_token;
  const expiresIn = body?.expires_in;
  if (answer.status !== 200 || typeof token !== 'string' || token === '' || token.length > 16_384 || typeof expiresIn !== 'number') {
    throw new UnavailableError(`${endpoints.issuer} did not answer the workload token with a token (HTTP ${answer.status})`);
  }
  return { accessToken: token, expiresIn, scope: typeof body?.scope === 'string' ? words(body.scope) : undefined };
}
