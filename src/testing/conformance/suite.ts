/**
 * @internal The one way a conformance suite is registered in vitest, for token
 * stores and membership stores alike: a fresh store per case (and its twin, a
 * second store over the same rows, when the suite was given one), cleaned up
 * after the case.
 *
 * @example
 * ```ts
 * registerSuite('TokenStore conformance: memory', conformanceCases(), () => new MemoryTokenStore(), {});
 * ```
 * @module
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** @internal A suite's cases and options, whatever the store. */
interface Suite<S extends T, T> {
  readonly cases: readonly { readonly name: string; readonly run: (store: T, twin?: T) => Promise<void> }[];
  readonly factory: () => S | Promise<S>;
  readonly cleanup?: ((store: S) => Promise<void> | void) | undefined;
  readonly twin?: ((store: S) => T | Promise<T>) | undefined;
}

/**
 * @internal Register `suite.cases` under `title` in the current vitest file.
 *
 * @example
 * ```ts
 * registerSuite('MembershipStore conformance: memory', { cases: membershipCases(), factory: () => new MemoryMembershipStore() });
 * ```
 */
export function registerSuite<S extends T, T>(title: string, suite: Suite<S, T>): void {
  describe(title, () => {
    let current: S | undefined;
    let twin: T | undefined;
    beforeEach(async () => {
      current = await suite.factory();
      twin = suite.twin === undefined ? undefined : await suite.twin(current);
    });
    afterEach(async () => {
      const made = current;
      current = undefined;
      twin = undefined;
      if (made !== undefined && suite.cleanup) await suite.cleanup(made);
    });
    for (const c of suite.cases) {
      it(c.name, async () => {
        expect(current, 'the factory made no store').toBeDefined();
        await c.run(current as S, twin);
      });
    }
  });
}
