/**
 * The reserved principal id of a service account (W1): `sa:<org>/<name>`.
 * No user id may take that form (`checkUserId` refuses the `sa:` prefix), so a
 * membership source, a session or a trusted issuer can never speak for an
 * account, and an account's roles come only from its own record.
 * @module
 */

/**
 * The prefix every service account id begins with, and no user id may.
 *
 * @example
 * ```ts
 * import { SERVICE_ACCOUNT_PREFIX } from 'svc-auth/policy';
 * 'sa:acme/ci-bot'.startsWith(SERVICE_ACCOUNT_PREFIX); // true
 * ```
 */
export const SERVICE_ACCOUNT_PREFIX = 'sa:';

/** An org name as stores keep it (S7, lowercase); the same rule as the stores' `ORG`. */
const ORG_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;

/**
 * A service account's name within its org: 1 to 64 of lowercase letters,
 * digits and `-`, starting with a letter or digit (it appears in ids, client
 * ids, CLI arguments and log lines).
 *
 * @example
 * ```ts
 * import { SERVICE_ACCOUNT_NAME } from 'svc-auth/policy';
 * SERVICE_ACCOUNT_NAME.test('ci-bot'); // true
 * SERVICE_ACCOUNT_NAME.test('CI Bot'); // false
 * ```
 */
export const SERVICE_ACCOUNT_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * Which account a service account principal is.
 *
 * @example
 * ```ts
 * import type { ServiceAccountRef } from 'svc-auth/policy';
 * const ref: ServiceAccountRef = { org: 'acme', name: 'ci-bot' };
 * ```
 */
export interface ServiceAccountRef {
  /** The owning org, lowercase. */
  readonly org: string;
  /** The account's name in that org. */
  readonly name: string;
}

/**
 * The principal id of the account `name` of `org`: `sa:<org>/<name>`; `null`
 * when either part breaks its rule (so no caller builds an id it cannot parse).
 *
 * @example
 * ```ts
 * import { serviceAccountId } from 'svc-auth/policy';
 * serviceAccountId('acme', 'ci-bot'); // 'sa:acme/ci-bot'
 * serviceAccountId('ACME', 'ci-bot'); // null
 * ```
 */
export function serviceAccountId(org: string, name: string): string | null {
  if (typeof org !== 'string' || typeof name !== 'string') return null;
  if (!ORG_NAME.test(org) || !SERVICE_ACCOUNT_NAME.test(name)) return null;
  return `${SERVICE_ACCOUNT_PREFIX}${org}/${name}`;
}

/**
 * The account a principal id names, or `null` when `id` is not a well-formed
 * service account id (a user id, or a malformed `sa:` text). Never throws.
 *
 * @example
 * ```ts
 * import { parseServiceAccountId } from 'svc-auth/policy';
 * parseServiceAccountId('sa:acme/ci-bot'); // { org: 'acme', name: 'ci-bot' }
 * parseServiceAccountId('alice');          // null
 * ```
 */
export function parseServiceAccountId(id: unknown): ServiceAccountRef | null {
  if (typeof id !== 'string' || !id.startsWith(SERVICE_ACCOUNT_PREFIX) || id.length > 200) return null;
  const rest = id.slice(SERVICE_ACCOUNT_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return null;
  const org = rest.slice(0, slash);
  const name = rest.slice(slash + 1);
  if (!ORG_NAME.test(org) || !SERVICE_ACCOUNT_NAME.test(name)) return null;
  return { org, name };
}

const RANDOM_PART = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The OAuth `client_id` of a machine client of the account `ref`:
 * `sa~<org>~<name>~<random>` (`~` is in neither part, and is safe in a form
 * body and a Basic header), so that the authorization server finds the
 * account from the id alone. `random` is 16 to 64 base64url characters; `null`
 * when a part breaks its rule.
 *
 * @example
 * ```ts
 * import { machineClientId } from 'svc-auth/policy';
 * machineClientId({ org: 'acme', name: 'ci-bot' }, 'q0Zr1u6fYVxJ3ZtUQW4ilA'); // 'sa~acme~ci-bot~q0Zr1u6fYVxJ3ZtUQW4ilA'
 * ```
 */
export function machineClientId(ref: ServiceAccountRef, random: string): string | null {
  if (serviceAccountId(ref.org, ref.name) === null || typeof random !== 'string' || !RANDOM_PART.test(random)) return null;
  return `sa~${ref.org}~${ref.name}~${random}`;
}

/**
 * The account a machine client id names, or `null` for any other text. Never throws.
 *
 * @example
 * ```ts
 * import { parseMachineClientId } from 'svc-auth/policy';
 * parseMachineClientId('sa~acme~ci-bot~q0Zr1u6fYVxJ3ZtUQW4ilA'); // { org: 'acme', name: 'ci-bot' }
 * parseMachineClientId('my-web-app');                            // null
 * ```
 */
export function parseMachineClientId(id: unknown): ServiceAccountRef | null {
  if (typeof id !== 'string' || id.length > 250 || !id.startsWith('sa~')) return null;
  const parts = id.split('~');
  if (parts.length !== 4) return null;
  const [, org, name, random] = parts as [string, string, string, string];
  if (serviceAccountId(org, name) === null || !RANDOM_PART.test(random)) return null;
  return { org, name };
}
