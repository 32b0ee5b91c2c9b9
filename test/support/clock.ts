/**
 * The one pinned instant of the test suite. Code under test takes a clock
 * (`now: () => Date`, or seconds for the token layer); tests pass these and
 * never read `Date.now()` in an assertion.
 */

/** The pinned instant, in milliseconds: 2030-01-01T00:00:00Z. */
export const T0 = Date.parse('2030-01-01T00:00:00Z');
export const DAY_MS = 86_400_000;
/** {@link T0} as a Date. */
export const NOW = new Date(T0);
/** Thirty days after {@link NOW}: the default expiry of a test record. */
export const LATER = new Date(T0 + 30 * DAY_MS);
/** {@link T0} in whole seconds, the unit of JWT `iat`/`exp` and of `TokenVerifier.verify(token, now)`. */
export const NOW_SEC = T0 / 1000;

/** A clock the test moves by hand; pass `clock.now` where the code takes `now`. */
export class Clock {
  ms: number;
  constructor(at: number = T0) {
    this.ms = at;
  }
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}
