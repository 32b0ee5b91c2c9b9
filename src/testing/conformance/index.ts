/**
 * The `TokenStore` conformance suite: the behaviour every store must have for
 * the service to be correct (T3 session records and their purge, T5-T7, org governance G1-G4), as vitest tests that an adapter's own test
 * file registers with one call. Tests use a pinned clock, fresh ids and owners
 * per test (so a shared database table works without truncation) and no sleeps.
 * @module
 */
import type { TokenStore } from '../../stores';
import { insertCases } from './insert';
import { revokeCases } from './revoke';
import { sessionCases } from './sessions';
import { touchCases, usageCases } from './usage';
import { expiryCases } from './expiry';
import { purgeCases } from './purge';
import { orgCases } from './orgs';
import { accountCases } from './accounts';
import type { CaseRegistrar } from './fixtures';
import { registerSuite } from './suite';

/**
 * Options of {@link tokenStoreConformance}.
 *
 * @example
 * ```ts
 * const options: ConformanceOptions<PostgresTokenStore> = { cleanup: () => pool.end() };
 * ```
 */
export interface ConformanceOptions<S extends TokenStore = TokenStore> {
  /** Called after each test with the store the factory made (close pools, remove temp dirs). */
  cleanup?: (store: S) => Promise<void> | void;
  /**
   * A second store over the same records as `store` (another pool on the same
   * table, another instance on the same directory), as a second server would
   * hold: the cases that race two servers use it, and pass without it.
   */
  twin?: (store: S) => TokenStore | Promise<TokenStore>;
}

/**
 * One conformance case: a name (the rule it checks) and a run against a fresh store.
 *
 * @example
 * ```ts
 * for (const c of conformanceCases()) await c.run(new MemoryTokenStore());
 * ```
 */
export interface ConformanceCase {
  readonly name: string;
  /** `twin`: a second store over the same records, when the suite was given one. */
  readonly run: (store: TokenStore, twin?: TokenStore) => Promise<void>;
}

/**
 * @internal The cases, as data, so that the suite itself can be tested against
 * deliberately broken stores (each must fail some case).
 *
 * @example
 * ```ts
 * conformanceCases().map((c) => c.name);
 * ```
 */
export function conformanceCases(): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const it: CaseRegistrar = (name, run): void => {
    cases.push({
      name,
      run: (s, twin) =>
        run(
          () => s,
          () => twin,
        ),
    });
  };
  insertCases(it);
  revokeCases(it);
  touchCases(it);
  usageCases(it);
  expiryCases(it);
  sessionCases(it);
  purgeCases(it);
  orgCases(it);
  accountCases(it);
  return cases;
}

/**
 * Register the conformance tests for a {@link TokenStore} implementation in the
 * current vitest file. `factory` is called before each test; `cleanup`, if
 * given, after each.
 *
 * @example
 * ```ts
 * // test/pg-store.test.ts
 * import { tokenStoreConformance } from 'svc-auth/testing';
 * import { PostgresTokenStore } from 'svc-auth/postgres';
 * tokenStoreConformance('PostgresTokenStore', () => new PostgresTokenStore({ pool }), { cleanup: () => undefined });
 * ```
 */
export function tokenStoreConformance<S extends TokenStore>(
  name: string,
  factory: () => S | Promise<S>,
  options: ConformanceOptions<S> = {},
): void {
  registerSuite<S, TokenStore>(`TokenStore conformance: ${name}`, {
    cases: conformanceCases(),
    factory,
    cleanup: options.cleanup,
    twin: options.twin,
  });
}

export { membershipStoreConformance, type MembershipConformanceOptions } from './members';
