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
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what fn threw, unchanged
    return Promise.reject(err);
  }
}
