/**
 * Calls into dependencies (token store, membership source, clock) that must
 * fail closed: any throw, rejection or hang becomes an {@link UnavailableError},
 * so that no caller ever mistakes a broken dependency for an answer.
 * @module
 */
import { SvcAuthError, UnavailableError } from '../errors';

/** Microtasks granted to a call before its deadline timer is armed. */
const FAST_TICKS = 4;

/**
 * What a failed dependency call becomes: our own `UnavailableError` as it is,
 * anything else wrapped as its `cause`.
 *
 * @example
 * ```ts
 * try { chain = readNow(id); } catch (err) { throw failure(err, 'token store'); }
 * ```
 */
export function failure(err: unknown, what: string): UnavailableError {
  if (err instanceof UnavailableError) return err;
  // Messages of foreign errors may quote inputs; keep them only as the cause.
  const code = err instanceof SvcAuthError ? ` (${err.code})` : '';
  return new UnavailableError(`${what} failed${code}`, { cause: err });
}

/**
 * Run `call` with a deadline. A throw (sync or async) or a timeout becomes an
 * `UnavailableError` whose `cause` is the original error; our own
 * `UnavailableError` passes through unchanged.
 *
 * @example
 * ```ts
 * const chain = await guarded(() => store.readChain(id), 5000, 'token store');
 * ```
 */
export function guarded<T>(call: () => T | Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let result: T | Promise<T>;
  try {
    result = call();
  } catch (err) {
    return Promise.reject(failure(err, what));
  }
  return new Promise<T>((resolve, reject) => {
    const watch = new Watch(timeoutMs, what, reject);
    // Promise.resolve adopts any thenable, and turns a throwing `then` into a rejection.
    Promise.resolve(result).then(
      (value) => {
        watch.settle();
        resolve(value);
      },
      (err: unknown) => {
        watch.settle();
        reject(failure(err, what));
      },
    );
    queueMicrotask(() => watch.tick());
  });
}

/**
 * The deadline of one call. Most calls (a memory store, a cached membership)
 * settle within a few microtasks: those are answered without paying for a
 * timer; the timer is armed only for a call still pending after that.
 */
class Watch {
  settled = false;
  #ticks = FAST_TICKS;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly timeoutMs: number,
    readonly what: string,
    readonly reject: (err: UnavailableError) => void,
  ) {}

  settle(): void {
    this.settled = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }

  tick(): void {
    if (this.settled) return;
    if (--this.#ticks > 0) {
      queueMicrotask(() => this.tick());
      return;
    }
    this.#timer = setTimeout(() => {
      this.settled = true;
      this.reject(new UnavailableError(`${this.what} did not answer within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    // A pending deadline must not keep a finished process alive.
    if (typeof this.#timer === 'object' && this.#timer !== null && 'unref' in this.#timer) this.#timer.unref();
  }
}

/**
 * Read the injected clock, refusing anything that is not a valid `Date`.
 *
 * @example
 * ```ts
 * const nowMs = readClock(() => new Date());
 * ```
 */
export function readClock(now: () => Date): number {
  let d: unknown;
  try {
    d = now();
  } catch (err) {
    throw new UnavailableError('clock failed', { cause: err });
  }
  const ms = d instanceof Date ? d.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new UnavailableError('clock returned an invalid date');
  return ms;
}

/**
 * Could `value` be a promise? A throwing `then` getter counts as one (it then
 * rejects under `guarded`): a membership source or store that answers without
 * a promise is taken at its word, without a timer.
 *
 * @example
 * ```ts
 * isThenable(Promise.resolve(1)); // true
 * isThenable({ orgs: {} });       // false
 * ```
 */
export function isThenable(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return true;
  }
}
