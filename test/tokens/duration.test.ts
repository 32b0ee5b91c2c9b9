import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { LIFETIMES, parsePatExpiry, parseShortDuration } from '../../src/tokens';
import { pathsOf } from '../support/errors';

const DAY = 86400;

const pathOf = (fn: () => unknown): string | undefined => pathsOf(fn)[0];

describe('parsePatExpiry', () => {
  it('T3: default is 30 days', () => {
    expect(parsePatExpiry(undefined)).toBe(30 * DAY);
    expect(LIFETIMES.pat).toEqual({ defaultSec: 30 * DAY, maxSec: 365 * DAY });
  });

  it('T3: <N>d and a number of days agree for every N from 1 to 365', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), (n) => {
        expect(parsePatExpiry(`${n}d`)).toBe(n * DAY);
        expect(parsePatExpiry(n)).toBe(n * DAY);
      }),
    );
  });

  it.each(['0d', '366d', '-1d', '1.5d', '30', '30D', ' 30d', '30d ', '030d', '12h', '1y', '', 'd', '1e2d', '99999999999d'])(
    'T3: %j is a ValidationError',
    (input) => {
      expect(pathOf(() => parsePatExpiry(input))).toBe('expiresIn');
    },
  );

  it.each([0, 366, -5, 1.5, Number.NaN, Infinity, null, {}, ['30d']])('T3: %j is a ValidationError', (input) => {
    expect(pathOf(() => parsePatExpiry(input as never))).toBe('expiresIn');
  });

  it('T3: any other text is refused (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        fc.pre(!/^[1-9][0-9]{0,2}d$/.test(s));
        expect(pathOf(() => parsePatExpiry(s))).toBe('expiresIn');
      }),
    );
  });
});

describe('parseShortDuration', () => {
  it('T3: session and component defaults and caps', () => {
    expect(parseShortDuration(undefined, LIFETIMES.session)).toBe(12 * 3600);
    expect(parseShortDuration(undefined, LIFETIMES.component)).toBe(3600);
    expect(parseShortDuration('30d', LIFETIMES.session)).toBe(30 * DAY);
    expect(parseShortDuration('1d', LIFETIMES.component)).toBe(DAY);
    expect(parseShortDuration('24h', LIFETIMES.component)).toBe(DAY);
    expect(parseShortDuration('90m', LIFETIMES.component)).toBe(5400);
  });

  it.each([
    ['31d', LIFETIMES.session],
    ['721h', LIFETIMES.session],
    ['2d', LIFETIMES.component],
    ['1441m', LIFETIMES.component],
  ])('T3: %s above the cap is a ValidationError', (input, opts) => {
    expect(pathOf(() => parseShortDuration(input, opts))).toBe('expiresIn');
  });

  it.each(['0m', '0h', '1s', '1w', '1.5h', '-1h', '1H', ' 1h', '01h', 'h', '', '1h30m'])('T3: %j is a ValidationError', (input) => {
    expect(pathOf(() => parseShortDuration(input, LIFETIMES.session))).toBe('expiresIn');
  });

  it('T3: a number is not a short duration', () => {
    expect(pathOf(() => parseShortDuration(60 as never, LIFETIMES.session))).toBe('expiresIn');
  });

  it('T3: results stay within 1 minute and the cap (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50000 }), fc.constantFrom('d', 'h', 'm'), (n, unit) => {
        let sec: number | undefined;
        try {
          sec = parseShortDuration(`${n}${unit}`, LIFETIMES.session);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          return;
        }
        expect(sec).toBeGreaterThanOrEqual(60);
        expect(sec).toBeLessThanOrEqual(LIFETIMES.session.maxSec);
      }),
    );
  });

  it.each([{ defaultSec: 0, maxSec: 10 }, { defaultSec: 20, maxSec: 10 }, { defaultSec: 1.5, maxSec: 10 }, null])(
    'T3: bad options %j are a ValidationError',
    (opts) => {
      expect(pathOf(() => parseShortDuration('1h', opts as never))).toBe('opts');
    },
  );
});
