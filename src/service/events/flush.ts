/**
 * `auth.flush()`: wait for queued last-used writes and event deliveries, but
 * never longer than one deadline. Each delivery and each write has its own
 * deadline (`storeTimeoutMs`), so a hook or store that hangs would otherwise
 * cost that much per queued item: 1 000 events at 5 s is 83 minutes of a
 * shutdown that was meant to take seconds.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { checkOptions } from '../../core/vocabulary';

/** Longest `flush` deadline accepted, as for `storeTimeoutMs`. */
const MAX_FLUSH_MS = 600_000;

/**
 * Options of `auth.flush`.
 *
 * @example
 * ```ts
 * const options: FlushOptions = { timeoutMs: 2_000 }; // what a shutdown can spare
 * ```
 */
export interface FlushOptions {
  /**
   * The one deadline for everything queued, in milliseconds, 0 to 600 000.
   * Default: `storeTimeoutMs` (5 000 unless set).
   */
  timeoutMs?: number;
}

/**
 * @internal The deadline of one `flush` call, in milliseconds.
 * @throws ValidationError for anything but `undefined` or `{ timeoutMs? }` in range.
 * @example
 * ```ts
 * flushDeadline(undefined, 5_000);          // 5000
 * flushDeadline({ timeoutMs: 250 }, 5_000); // 250
 * ```
 */
export function flushDeadline(options: unknown, fallbackMs: number): number {
  if (options === undefined) return fallbackMs;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValidationError([{ path: 'options', message: 'flush takes an object { timeoutMs? }' }]);
  }
  const issues: IssueInput[] = [];
  let ms: unknown;
  try {
    checkOptions(options, ['timeoutMs'], 'options', issues);
    ms = (options as FlushOptions).timeoutMs;
  } catch (err) {
    throw new ValidationError([{ path: 'options', message: 'could not be read' }], { cause: err });
  }
  if (ms !== undefined && !(typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= MAX_FLUSH_MS)) {
    issues.push({ path: 'options.timeoutMs', message: `must be an integer from 0 to ${MAX_FLUSH_MS}` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return (ms as number | undefined) ?? fallbackMs;
}

/**
 * @internal Resolve when `work` settles or `ms` have passed, whichever comes
 * first; never rejects. What is still queued at the deadline goes on in the
 * background, under its own per-item deadlines.
 * @example
 * ```ts
 * await flushWithin(Promise.all([recorder.flush(), events.flush()]), 5_000);
 * ```
 */
export function flushWithin(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    // Not unref'd, unlike the per-item timers: a process awaiting flush on its
    // way out must get its answer (an unsettled top-level await exits with code
    // 13), and this wait is bounded by the deadline itself.
    const timer = setTimeout(resolve, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}
