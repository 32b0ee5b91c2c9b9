/**
 * Calls into dependencies (token store, membership source, clock) that must
 * fail closed: any throw, rejection or hang becomes an {@link UnavailableError},
 * so that no caller ever mistakes a broken dependency for an answer.
 * @module
 */
import { SvcAuthError, UnavailableError } from '../errors';

/** Microtasks granted to a call before its deadline timer is armed. */
const FAST_TICKS = 4;

function failure(err: unknown, what: string): UnavailableError {
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
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Promise.resolve adopts any thenable, and turns a throwing `then` into a rejection.
    Promise.resolve(result).then(
      (value) => {
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        reject(failure(err, what));
      },
    );
    // Most calls (a memory store, a cached membership) settle within a few
    // microtasks: answer those without paying for a timer on every request.
    let ticks = FAST_TICKS;
    const watch = (): void => {
      if (settled) return;
      if (--ticks > 0) {
        queueMicrotask(watch);
        return;
      }
      timer = setTimeout(() => {
        settled = true;
        reject(new UnavailableError(`${what} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      // A pending deadline must not keep a finished process alive.
      if (typeof timer === 'object' && timer !== null && 'unref' in timer) timer.unref();
    };
    queueMicrotask(watch);
  });
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
