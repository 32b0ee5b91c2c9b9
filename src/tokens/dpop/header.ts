/**
 * The DPoP scheme of an `Authorization` header (RFC 9449 §7.1) and the `DPoP` header beside it,
 * as `bearerTextFromRequest` reads them: syntax only.
 * @module
 */

const SPACE = 0x20;

function isOws(c: number): boolean {
  return c === SPACE || c === 0x09;
}

// RFC 9449 §7.1: `Authorization: DPoP <token>`, the scheme case-insensitive like Bearer's.
/** @internal the scheme, lower case. */
export const DPOP_SCHEME = 'dpop';

/** @internal does `value` hold the scheme at `at` (any case)? @example `hasDpopScheme('DPoP x', 0); // true` */
export function hasDpopScheme(value: string, at: number): boolean {
  for (let k = 0; k < DPOP_SCHEME.length; k++) {
    if ((value.charCodeAt(at + k) | 0x20) !== DPOP_SCHEME.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * @internal A token sent with the DPoP scheme (RFC 9449 §7.1): the token text (its characters not
 * checked yet, as for Bearer) and the raw value of the request's `DPoP` header (an array when node
 * saw it more than once), read by the proof check.
 *
 * @example
 * ```ts
 * const got = bearerTextFromRequest(req);
 * if (typeof got !== 'string') checkProof(proofText(got.proof), { ...context, token: got.token });
 * ```
 */
export interface DpopCredential {
  readonly token: string;
  readonly proof: unknown;
}

/**
 * @internal Does an `Authorization` value use the DPoP scheme (after leading spaces, then one space)?
 *
 * @example
 * ```ts
 * isDpopValue('DPoP abc'); // true
 * ```
 */
export function isDpopValue(value: string): boolean {
  let start = 0;
  while (start < value.length && isOws(value.charCodeAt(start))) start++;
  return value.length - start > DPOP_SCHEME.length && hasDpopScheme(value, start) && value.charCodeAt(start + 4) === SPACE;
}

/**
 * @internal A header other than Authorization; on node, every copy `rawHeaders` shows.
 *
 * @example
 * ```ts
 * readNamed(req, 'dpop'); // the header's value, or every copy on node
 * ```
 */
export function readNamed(req: unknown, name: string): unknown {
  const headers = (req as { headers: unknown }).headers as Record<string, unknown> & { get?: unknown };
  if (typeof headers.get === 'function') return (headers.get as (n: string) => unknown).call(headers, name);
  const raw: unknown = (req as { rawHeaders?: unknown }).rawHeaders;
  if (Array.isArray(raw)) {
    const found: unknown[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const n: unknown = raw[i];
      if (typeof n === 'string' && n.length === name.length && n.toLowerCase() === name) found.push(raw[i + 1]);
    }
    return found;
  }
  return headers[name];
}
