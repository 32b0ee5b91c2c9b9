/**
 * @internal Run `fn` now and report its outcome as a promise, so that a
 * synchronous store method rejects instead of throwing, as an async one would.
 * @example
 * ```ts
 * settle(() => JSON.parse('{')); // a rejected promise, not a throw
 * ```
 */
export function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
