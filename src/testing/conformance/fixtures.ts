/**
 * @internal Fixtures of the conformance suite: a pinned clock and fresh ids and
 * owners per test, so that tests never see each other's rows in a shared table.
 *
 * @example
 * ```ts
 * const f = fixtures();
 * await store.insert(f.record({ id: f.id('a') }), at(0));
 * ```
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { TokenRecord, TokenStore } from '../../stores';

/**
 * @internal How a case file registers its cases: a name, and a run given the
 * store and its twin (a second store over the same records, when the suite was given one).
 *
 * @example
 * ```ts
 * const it: CaseRegistrar = (name, run) => cases.push({ name, run: (s, twin) => run(() => s, () => twin) });
 * ```
 */
export type CaseRegistrar = (name: string, run: (store: () => TokenStore, twin: () => TokenStore | undefined) => Promise<void>) => void;

/** The suite's fixed "now": 2030-01-01T00:00:00Z, as epoch ms. @example `new Date(T0)` */
export const T0 = Date.parse('2030-01-01T00:00:00.000Z');
/** One hour in ms. @example `at(HOUR)` */
export const HOUR = 3_600_000;
/** One day in ms. @example `at(30 * DAY)` */
export const DAY = 24 * HOUR;
/** The pinned clock: T0 plus `ms` (tests pass whole seconds). @example `at(1000)` */
export const at = (ms: number): Date => new Date(T0 + ms);

/**
 * Fresh ids and owners per call; `record` fills a valid active PAT around the given fields.
 *
 * @example
 * ```ts
 * const f = fixtures();
 * f.record({ id: f.id('a'), name: 'deploy' });
 * ```
 */
export function fixtures() {
  const prefix = randomUUID();
  const id = (s: string): string => `${prefix}-${s}`;
  const owner = (s = 'owner'): string => `${prefix}-${s}`;
  const record = (over: Partial<TokenRecord> & { id: string }): TokenRecord => ({
    kind: 'pat',
    ownerId: owner(),
    name: 'ci',
    description: null,
    scopes: null,
    parentId: null,
    createdAt: at(0),
    expiresAt: at(30 * DAY),
    revokedAt: null,
    committerIdentity: null,
    ...over,
  });
  return { id, owner, record };
}
