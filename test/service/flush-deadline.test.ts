/**
 * Issue 18, item 8: `auth.flush()` must not hang a shutdown. Each delivery and
 * each last-used write has its own deadline (`storeTimeoutMs`), and a hook or
 * store that hangs would make flush wait that long per queued item (1 000
 * events at 5 s is 83 minutes). Flush has one overall deadline instead.
 * Time is faked: nothing here waits for real.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../src/errors';
import { reportDenied } from '../../src/service';
import { MemoryTokenStore } from '../../src/stores';
import { testAuth } from '../support/auth';
import { rejection } from '../support/errors';

const never = (): Promise<void> => new Promise<void>(() => {});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Start a flush; `done()` tells whether it has resolved yet. */
function started(flush: Promise<void>): { done: () => boolean } {
  let resolved = false;
  void flush.then(() => (resolved = true));
  return { done: () => resolved };
}

describe('auth.flush has one overall deadline (issue 18, item 8)', () => {
  it('1 000 events queued for a hook that never settles: flush resolves after one storeTimeoutMs, not one per event', async () => {
    let calls = 0;
    const s = await testAuth({
      storeTimeoutMs: 5_000,
      onEvent: () => {
        calls++;
        return never();
      },
    });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    for (let i = 0; i < 1_000; i++) reportDenied(s.auth, me, 'acme/web', 'repo:admin', 'role');
    const flush = started(s.auth.flush());
    await vi.advanceTimersByTimeAsync(4_999);
    expect(flush.done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(flush.done()).toBe(true);
    // Delivery moved on to the second event only: the rest is still queued, in the background.
    expect(calls).toBe(2);
  });

  it('options.timeoutMs sets the one deadline; a hanging store write and a hanging hook share it', async () => {
    const store = new MemoryTokenStore();
    store.touch = never; // the last-used write hangs too
    const s = await testAuth({ tokens: store, storeTimeoutMs: 60_000, onEvent: never });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    await s.auth.authenticate(token); // a last-used write queued
    for (let i = 0; i < 10; i++) reportDenied(s.auth, me, 'acme/web', 'repo:admin', 'role');
    const flush = started(s.auth.flush({ timeoutMs: 250 }));
    await vi.advanceTimersByTimeAsync(249);
    expect(flush.done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(flush.done()).toBe(true);
  });

  it('with nothing hanging, flush resolves as soon as everything is delivered, before any deadline', async () => {
    const seen: string[] = [];
    const s = await testAuth({ onEvent: (e) => void seen.push(e.type) });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    reportDenied(s.auth, me, 'acme/web', 'repo:admin', 'role');
    const flush = started(s.auth.flush());
    await vi.advanceTimersByTimeAsync(0);
    expect(flush.done()).toBe(true);
    expect(seen).toEqual(['token.created', 'access.denied']); // the session's creation, then the report
    expect(vi.getTimerCount()).toBe(0); // the deadline timer was cleared
  });

  it('bad options are a ValidationError (the one way flush rejects)', async () => {
    const s = await testAuth();
    for (const bad of [{ timeoutMs: -1 }, { timeoutMs: 1.5 }, { timeoutMs: 600_001 }, { timeoutMs: '5' }, { wait: 1 }, 5, null]) {
      expect(await rejection(s.auth.flush(bad as never))).toBeInstanceOf(ValidationError);
    }
    await expect(s.auth.flush({ timeoutMs: 0 })).resolves.toBeUndefined();
  });
});
