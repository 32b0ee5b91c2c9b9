/**
 * Cross-site request forgery on the sign-in and consent forms. Two checks,
 * both required: the browser's own word on where the form came from (`Origin`,
 * else `Sec-Fetch-Site`), and a form token, an HMAC of the interaction's id
 * under the server's form key, that only a page this server rendered for this
 * interaction carries. The interaction cookie (SameSite=Lax, bound to the id)
 * is a third line: a forged post from another browser has no interaction.
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** @internal Which form a token is for: a token of one form is refused by the other. */
export type FormPurpose = 'login' | 'consent';

/**
 * @internal The form token of interaction `uid` for `purpose`.
 *
 * @example
 * ```ts
 * formToken(key, 'Xk3…', 'consent'); // 43 base64url characters
 * ```
 */
export function formToken(key: Buffer, uid: string, purpose: FormPurpose): string {
  return createHmac('sha256', key).update(`svc-auth oauth form\u0000${purpose}\u0000${uid}`).digest('base64url');
}

/**
 * @internal Why a posted form is refused, or `undefined` when it may be used:
 * its origin is this server's (or the browser says nothing either way) and its
 * token is this interaction's token for this form.
 */
export function formProblem(
  req: IncomingMessage,
  origin: string,
  key: Buffer,
  uid: string,
  purpose: FormPurpose,
  token: unknown,
): string | undefined {
  const from = req.headers.origin;
  if (from !== undefined) {
    if (from !== origin) return 'the form was sent from another site';
  } else {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'the form was sent from another site';
  }
  if (typeof token !== 'string' || token.length !== 43) return 'the form has no valid form token';
  const want = Buffer.from(formToken(key, uid, purpose));
  const got = Buffer.from(token);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return 'the form has no valid form token';
  return undefined;
}
