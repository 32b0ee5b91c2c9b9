/**
 * The realm of a `WWW-Authenticate` challenge (H2): which text may stand in
 * `realm="…"`, and the challenge's first words.
 * @module
 */

/** The realm of every challenge unless a guard or adapter is given another (`realm` option). */
export const DEFAULT_REALM = 'svc';

/** Options of `errorAnswer` and `decisionError`. */
export interface ErrorAnswerOptions {
  /** The `realm` of the `WWW-Authenticate` challenge on 401 and 403. Default `'svc'`. */
  realm?: string;
}

/**
 * Whether `realm` can stand in `Bearer realm="…"` as it is: 1 to 128
 * printable ASCII characters, no `"` and no `\` (RFC 9110 quoted-string
 * without escapes), so a realm can never break or extend the header.
 *
 * @example
 * ```ts
 * isRealm('svc');       // true
 * isRealm('a"b');       // false
 * ```
 */
export function isRealm(realm: unknown): realm is string {
  if (typeof realm !== 'string' || realm.length === 0 || realm.length > 128) return false;
  for (let i = 0; i < realm.length; i++) {
    const c = realm.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** @internal The challenge's first words, `Bearer realm="…"`, for the realm of `options` (the default for a bad one). */
export function challenge(options: ErrorAnswerOptions | undefined): string {
  const realm = options?.realm;
  return `Bearer realm="${isRealm(realm) ? realm : DEFAULT_REALM}"`;
}
