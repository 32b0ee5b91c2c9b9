/**
 * @internal Service-account reads as the chain batcher carries them (batch.ts): the key an
 * account is read by, the parameters of the statements it rides on (sql/reads.ts), and its
 * record decoded from the JSON text the statement returns. The request path's reads
 * (BOUNDED_ACCOUNT) take a shared frozen record, checked once per distinct text: an account
 * changes rarely, and checking it (dates, clients, names) on every request was most of what
 * reading it cost the client.
 * @module
 */
import { UnavailableError } from '../../../../errors';
import { checkServiceAccount, type ServiceAccountRecord } from '../../../service-accounts';

// Neither part can hold NUL (the store refuses it before any read), so the key is unambiguous.
const SEP = '\u0000';

/**
 * @internal The key a batch reads an account by.
 *
 * @example
 * ```ts
 * const key = accountKey('acme', 'ci-bot');
 * ```
 */
export function accountKey(org: string, name: string): string {
  return `${org}${SEP}${name}`;
}

/**
 * @internal The `[org, name]` of a key, as the single-account statement takes them ($2, $3).
 *
 * @example
 * ```ts
 * const [org, name] = accountParams(accountKey('acme', 'ci-bot'));
 * ```
 */
export function accountParams(key: string): [string, string] {
  const at = key.indexOf(SEP);
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * @internal The riders' parameter for several keys: a JSON array of `[org, name]` pairs.
 *
 * @example
 * ```ts
 * const $2 = ridersParam([accountKey('acme', 'ci-bot'), accountKey('acme', 'deploy')]);
 * ```
 */
export function ridersParam(keys: readonly string[]): string {
  return JSON.stringify(keys.map(accountParams));
}

/**
 * @internal The `account` column of the riders' rows (`[[org, name], record text]`) by key;
 * anything else is passed by (its callers then find no account: refused, never allowed).
 *
 * @example
 * ```ts
 * const byKey = accountsOf(rows.map((r) => r.account));
 * ```
 */
export function accountsOf(values: Iterable<unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const value of values) {
    if (!Array.isArray(value)) continue;
    const [pair, record] = value as unknown[];
    if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') out.set(accountKey(pair[0], pair[1]), record);
  }
  return out;
}

/**
 * @internal Records decoded from their stored JSON text: a fresh one for each caller that
 * asked for its own, and for `shared` callers one frozen record per distinct text, kept for
 * the next (at most `max` texts; the oldest is forgotten first).
 *
 * @example
 * ```ts
 * const views = new AccountViews(1000);
 * const account = views.decode('{"org":"acme", ...}', true);
 * ```
 */
export class AccountViews {
  readonly #byText = new Map<string, ServiceAccountRecord>();

  constructor(readonly max: number) {}

  /** One found account (its JSON text); throws `UnavailableError` when it is not a valid record. */
  decode(found: unknown, shared: boolean): ServiceAccountRecord {
    if (typeof found !== 'string') return parsed({ record: found }) as ServiceAccountRecord;
    if (shared) {
      const seen = this.#byText.get(found);
      if (seen !== undefined) return seen;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(found);
    } catch {
      raw = undefined; // refused by the check below, as any malformed record
    }
    const record = parsed({ record: raw }) as ServiceAccountRecord;
    if (shared && this.max > 0) {
      if (this.#byText.size >= this.max) this.#byText.delete(this.#byText.keys().next().value as string);
      this.#byText.set(found, record);
    }
    return record;
  }
}

/** @internal A stored record as a checked one; a malformed one is `UnavailableError` (fail closed). */
export function parsed(row: { record?: unknown } | undefined): ServiceAccountRecord | null {
  if (row === undefined) return null;
  try {
    return checkServiceAccount(row.record, 'iso');
  } catch (err) {
    throw new UnavailableError('token store unavailable: a stored service account is malformed', { cause: err });
  }
}
