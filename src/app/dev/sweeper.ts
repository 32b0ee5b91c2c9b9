/**
 * The expiry sweep of `svc serve`: `auth.sweepExpiring` for each warning
 * threshold, once when the server starts listening and then on a timer,
 * each warning a line in the server's log; and on the same timer
 * `auth.purge`, which removes the records of sessions ended longer ago than
 * the retention (a line in the log when it removed any). The marks live in the token store,
 * so two servers on one `SVC_HOME` (or one PostgreSQL table), or a restart,
 * warn once. The timer never keeps the process alive, a sweep never overlaps
 * the previous one, and `stop()` waits for a sweep in progress, so that the
 * store is not closed under it.
 * @module
 */
import type { Auth } from '../../service';

/**
 * How the dev server sweeps.
 *
 * @example
 * ```ts
 * const sweep: ExpirySweep = { intervalMs: 3_600_000, within: ['7d', '1d'] };
 * ```
 */
export interface ExpirySweep {
  /** Time between sweeps, in milliseconds. */
  readonly intervalMs: number;
  /** The warning thresholds, each as `sweepExpiring` takes `within` (`'7d'`). */
  readonly within: readonly (string | number)[];
  /** How long ended sessions' records are kept, as `auth.purge` takes `olderThan` (`'90d'`), or `false` to keep them. Default `'90d'`. */
  readonly purgeOlderThan?: string | number | false;
}

/** A running sweeper. */
export interface Sweeper {
  /** Stop the timer; resolves once a sweep in progress has finished. */
  stop(): Promise<void>;
}

/** Control characters never reach the log from a token name or a user id. */
const clean = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/**
 * Start sweeping now and every `sweep.intervalMs`.
 *
 * @example
 * ```ts
 * const sweeper = startSweeper(auth, { intervalMs: 3_600_000, within: ['7d', '1d'] }, (line) => console.error(line));
 * await sweeper.stop();
 * ```
 */
export function startSweeper(auth: Auth, sweep: ExpirySweep, log: (line: string) => void): Sweeper {
  let running: Promise<void> | undefined;
  let stopped = false;

  async function once(): Promise<void> {
    for (const within of sweep.within) {
      if (stopped) return;
      try {
        for (const t of await auth.sweepExpiring({ within })) {
          log(
            `svc: token '${clean(t.name)}' of ${clean(t.ownerId)} expires ${t.expiresAt.toISOString()} (within ${t.withinDays} day${t.withinDays === 1 ? '' : 's'})`,
          );
        }
      } catch (err) {
        // A failed sweep is said and retried at the next tick; it never stops the server.
        log(`svc: expiry sweep failed: ${err instanceof Error ? clean(err.message) : 'unknown error'}`);
      }
    }
    const olderThan = sweep.purgeOlderThan ?? '90d';
    if (stopped || olderThan === false) return;
    try {
      const removed = await auth.purge({ olderThan });
      if (removed > 0) log(`svc: removed ${removed} record${removed === 1 ? '' : 's'} of sessions ended more than ${olderThan} ago`);
    } catch (err) {
      log(`svc: session purge failed: ${err instanceof Error ? clean(err.message) : 'unknown error'}`);
    }
  }

  const tick = (): void => {
    if (stopped || running !== undefined) return;
    running = once().finally(() => {
      running = undefined;
    });
  };
  tick();
  const timer = setInterval(tick, sweep.intervalMs);
  // The sweep must never keep a finished process alive.
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
