/**
 * `allowedIps` at authentication: every record of the token's chain that has
 * a list must hold the client address, so a child without a list of its own
 * is limited by its parent's, and no child can reach beyond its parent's
 * (narrowing, as scopes layer in A5). An unknown address (a fetch adapter
 * given no way to learn it, a proxy chain that could not be read) holds in no
 * list: the token is refused rather than let through (fail closed).
 *
 * The lists are compiled once per record and kept while the record read on
 * the next request holds the same list (the same array, or an equal one): a
 * list edited by hand decides the very next request, as scopes do.
 * @module
 */
import { ForbiddenError, UnavailableError } from '../../../errors';
import { RangeMatcher, type IpAddress } from '../../../core/network';
import type { TokenRecord } from '../../../stores';

interface Compiled {
  readonly list: readonly string[];
  readonly matcher: RangeMatcher;
}

/** @internal Does any record of the chain limit where it may be used from? One loop, no allocation. */
export function isRestricted(chain: readonly TokenRecord[]): boolean {
  for (let i = 0; i < chain.length; i++) if ((chain[i] as TokenRecord).allowedIps != null) return true;
  return false;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * @internal The compiled `allowedIps` of records, bounded (the oldest goes
 * first when full), one per `Auth` instance.
 *
 * @example
 * ```ts
 * const ips = new AllowedIps(10_000);
 * if (isRestricted(chain)) ips.check(chain, addressOf(req, peer, trust)); // throws ForbiddenError (reason 'ip') when refused
 * ```
 */
export class AllowedIps {
  readonly #byId = new Map<string, Compiled>();

  constructor(private readonly max: number) {}

  /**
   * Throw `ForbiddenError` (reason `ip`, the token's id) unless every list of
   * `chain` holds `client` (`undefined`: not known, held by no list). A list
   * that is not one (a faulty store) is `UnavailableError`: never an allow.
   */
  check(chain: readonly TokenRecord[], client: IpAddress | undefined): void {
    for (const record of chain) {
      const list = record.allowedIps;
      if (list == null) continue;
      if (client === undefined || !this.#matcher(record.id, list).matches(client)) {
        const tokenId = (chain[0] as TokenRecord).id;
        const where = client === undefined ? 'the client address is not known' : 'this address is not among its allowed ranges';
        throw new ForbiddenError(`this token may not be used from here: ${where}`, { reason: 'ip', tokenId });
      }
    }
  }

  #matcher(id: string, list: readonly string[]): RangeMatcher {
    const known = this.#byId.get(id);
    if (known !== undefined && sameList(known.list, list)) return known.matcher;
    let matcher: RangeMatcher;
    try {
      if (!Array.isArray(list) || !list.every((r) => typeof r === 'string')) throw new TypeError('allowedIps is not a list of strings');
      matcher = new RangeMatcher(list);
    } catch (err) {
      throw new UnavailableError('token store returned allowedIps that are not address ranges', { cause: err });
    }
    if (this.max > 0) {
      if (known === undefined && this.#byId.size >= this.max) this.#byId.delete(this.#byId.keys().next().value as string);
      // A frozen copy: the cache never trusts an array the store might change later.
      this.#byId.set(id, { list: Object.isFrozen(list) ? list : Object.freeze([...list]), matcher });
    }
    return matcher;
  }
}
