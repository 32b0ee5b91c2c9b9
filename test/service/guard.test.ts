import { describe, it, expect } from 'vitest';
import { ConflictError, UnavailableError } from '../../src/errors';
import { guarded, readClock } from '../../src/service/deadlines';
import { rejection } from '../support/errors';

describe('guarded (T5 fail closed)', () => {
  it('T5: passes a value through', async () => {
    expect(await guarded(() => 42, 50, 'x')).toBe(42);
    expect(await guarded(async () => 'y', 50, 'x')).toBe('y');
  });

  it('T5: a synchronous throw, a rejection or our own non-unavailable error becomes UnavailableError with the cause', async () => {
    const boom = new Error('secret-ish detail');
    const err = await rejection(
      guarded(
        () => {
          throw boom;
        },
        50,
        'store',
      ),
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as UnavailableError).cause).toBe(boom);
    expect(await rejection(guarded(() => Promise.reject(new ConflictError()), 50, 'store'))).toBeInstanceOf(UnavailableError);
  });

  it('T5 hostile: a call that never settles times out as UnavailableError', async () => {
    expect(await rejection(guarded(() => new Promise(() => {}), 10, 'store'))).toBeInstanceOf(UnavailableError);
  });
});

describe('readClock', () => {
  it('refuses a clock that throws or returns a non-Date or an invalid Date', () => {
    expect(readClock(() => new Date(5000))).toBe(5000);
    expect(() =>
      readClock(() => {
        throw new Error('x');
      }),
    ).toThrow(UnavailableError);
    expect(() => readClock(() => 5 as never)).toThrow(UnavailableError);
    expect(() => readClock(() => new Date('nope'))).toThrow(UnavailableError);
  });
});
