/**
 * Debian's chromium for the tests that need a real browser, driven by
 * playwright-core (no browser download): where it is, the flags that keep it
 * quiet and headless on a CI box, and the guard that skips visibly without it
 * on a developer's machine but fails under CI, so CI never passes by skipping.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `describe` when chromium is installed; else `describe.skip` after a warning naming `what`, or a failing test when CI is set. */
export function describeWithChromium(what: string): typeof describe | typeof describe.skip {
  if (existsSync(CHROMIUM)) return describe;
  if (process.env.CI) {
    describe(what, () => {
      it('needs Debian chromium in CI', () => {
        expect.fail(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
      });
    });
  } else console.warn(`${CHROMIUM} is missing: skipping ${what} (apt-get install -y chromium)`);
  return describe.skip;
}
