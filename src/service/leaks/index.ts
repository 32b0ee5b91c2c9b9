/**
 * Leaked tokens (`auth.reportLeaked`): whoever holds one may revoke it.
 * @module
 */
export type { LeakOutcome, LeakReport, ReportLeakedOptions } from './types';

/** @internal for the service (auth.ts) and the tests; the package root decides what is public. */
export { leakReporter } from './report';
