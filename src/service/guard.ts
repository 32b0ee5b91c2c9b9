/**
 * Calls into dependencies (token store, membership source, clock) that must
 * fail closed: any throw, rejection or hang becomes an {@link UnavailableError},
 * so that no caller ever mistakes a broken dependency for an answer.
 * @module
 */
import { SvcAuthError, UnavailableError } from '../errors';

const PENDING: unique symbol = Symbol('pending');
/** Microtasks granted to a call before its deadline timer is armed. */
const FAST_TICKS = 4;

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
export async function guarded<T>(call: () => T | Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const work = Promise.resolve().then(call);
    // Most calls (a memory store, a cached membership) settle within a few
    // microtasks: answer those without paying for a timer on every request.
    let ticks: Promise<typeof PENDING> = Promise.resolve(PENDING);
    for (let i = 0; i < FAST_TICKS; i++) ticks = ticks.then((v) => v);
    const first = await Promise.race([work, ticks]);
    if (first !== PENDING) return first as T;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UnavailableError(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
      // A pending deadline must not keep a finished process alive.
      if (typeof timer === 'object' && timer !== null && 'unref' in timer) timer.unref();
    });
    return await Promise.race([work, deadline]);
  } catch (err) {
    if (err instanceof UnavailableError) throw err;
    // Messages of foreign errors may quote inputs; keep them only as the cause.
    const code = err instanceof SvcAuthError ? ` (${err.code})` : '';
    throw new UnavailableError(`${what} failed${code}`, { cause: err });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
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
