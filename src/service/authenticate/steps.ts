/**
 * The request path as steps that run at once while nothing waits: a
 * generator yields only what is pending (a promise of a store, a membership
 * source, a signature); `drive` runs it to its end in the caller's turn when
 * nothing is, and continues asynchronously from the first promise otherwise.
 * One body serves both a hot token on an in-process store (no promise, no
 * microtask) and a token read from a database: there is no second path that
 * could answer differently.
 * @module
 */

/** @internal a request path written as steps: yields what it waits for, returns its result. */
export type Steps<T> = Generator<PromiseLike<unknown>, T, unknown>;

/**
 * @internal Run `steps`: its result now when it never waited, else a promise of it. An error the steps
 * throw before waiting is thrown here; after, the promise rejects with it.
 *
 * @example
 * ```ts
 * function* double(x: number | Promise<number>): Steps<number> {
 *   const n = x instanceof Promise ? ((yield x) as number) : x;
 *   return n * 2;
 * }
 * drive(double(2)); // 4, at once
 * await drive(double(Promise.resolve(2))); // 4
 * ```
 */
export function drive<T>(steps: Steps<T>): T | Promise<T> {
  const step = steps.next();
  return step.done === true ? step.value : resume(steps, step.value);
}

async function resume<T>(steps: Steps<T>, pending: PromiseLike<unknown>): Promise<T> {
  let waiting = pending;
  for (;;) {
    let value: unknown;
    let failed = false;
    try {
      value = await waiting;
    } catch (err) {
      failed = true;
      value = err;
    }
    // A rejection goes back into the steps (their own catch decides), not around them.
    const step = failed ? steps.throw(value) : steps.next(value);
    if (step.done === true) return step.value;
    waiting = step.value;
  }
}

/**
 * @internal `run()` as a promise, as an async function would give it: its value, its promise, or what it
 * threw as the rejection.
 *
 * @example
 * ```ts
 * const p = promised(() => drive(steps)); // never throws
 * ```
 */
export function promised<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    const got = run();
    return got instanceof Promise ? got : Promise.resolve(got);
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, as an async function rejects with it
    return Promise.reject(err);
  }
}
