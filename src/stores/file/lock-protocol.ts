/**
 * A lock file shared by processes on one machine, for locked read-modify-write
 * of small state files (the CLI's dev instance).
 *
 * The lock is a file hard-linked into place from a complete pending copy
 * (`link` fails when it exists), which exactly one process can win, holding
 * `{ pid, host, time, token }` (`token` is a random
 * nonce naming this holding). A lock is broken only when its holder is known to
 * be dead: same host and `kill(pid, 0)` gives ESRCH. Age alone never breaks a
 * lock whose holder lives: a process paused while holding it (Ctrl-Z, a paused
 * VM) would otherwise resume and write its old copy over newer state (C3). Only
 * a lock file with no readable holder (written in place where hard links are
 * not supported, by a process that died mid-write) is judged by its age, `staleMs`. Breaking renames the lock aside and
 * checks it is the very file judged dead (same inode), so a racing process
 * cannot delete a lock that was taken meanwhile.
 *
 * The whole operation has one budget, `timeoutMs`, counted from the call: the
 * in-process queue, the wait for the lock and the work itself. `fn` is handed
 * {@link HeldLock.check}, which a writer calls just before its commit (the
 * rename): it fails when the budget is spent or the lock is no longer ours, so
 * an operation reported as failed has no later effect. Waiters retry with short
 * jittered sleeps. Within one process, callers of the same lock queue in memory
 * first, so they never poll against each other.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { UnavailableError } from '../../errors';
import { fsError } from './fs-errors';
import { breakIfStale, sweepPending, tryCreate } from './lock-on-disk';

/**
 * Timing of {@link withFileLock}.
 *
 * @example
 * ```ts
 * const timing: LockTiming = { timeoutMs: 10_000, staleMs: 10_000 };
 * ```
 */
export interface LockTiming {
  /** The whole operation's budget, from the call: waiting, working and committing (then `UnavailableError`). */
  readonly timeoutMs: number;
  /** A lock file with no readable holder older than this is taken to be abandoned and broken. */
  readonly staleMs: number;
}

/**
 * What `fn` of {@link withFileLock} is handed while it holds the lock.
 *
 * @example
 * ```ts
 * await withFileLock(lockPath, timing, async (lock) => {
 *   await writeTemp();
 *   await lock.check(); // throws UnavailableError: budget spent, or the lock is not ours
 *   await rename(tmp, path);
 * });
 * ```
 */
export interface HeldLock {
  /** When the operation's budget ends (ms since the epoch). */
  readonly deadline: number;
  /**
   * Call right before committing: rejects with `UnavailableError` when the
   * budget is spent (the caller has been or will be told it failed) or the lock
   * file no longer holds this holding's nonce.
   */
  check(): Promise<void>;
}

const queues = new Map<string, Promise<void>>();

/**
 * Run `fn` while holding the lock file `lockPath`, then release it, whatever `fn` does.
 * Rejects with `UnavailableError` when the lock cannot be had within `timing.timeoutMs`
 * of the call; `fn` should call `lock.check()` before it commits.
 *
 * @example
 * ```ts
 * await withFileLock('/home/me/.svc/keys.json.lock', { timeoutMs: 4_000, staleMs: 10_000 }, async (lock) => {
 *   // read, change, write a temp file; then `await lock.check()` and rename it over keys.json
 * });
 * ```
 */
export async function withFileLock<T>(lockPath: string, timing: LockTiming, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
  const deadline = Date.now() + timing.timeoutMs;
  const prev = queues.get(lockPath) ?? Promise.resolve();
  let done!: () => void;
  const mine = prev.then(() => new Promise<void>((resolve) => (done = resolve)));
  queues.set(lockPath, mine);
  try {
    await prev;
    const held = await acquire(lockPath, timing, deadline);
    const lock: HeldLock = {
      deadline,
      check: async () => {
        if (Date.now() > deadline) {
          throw new UnavailableError(`the operation took longer than ${timing.timeoutMs} ms; nothing was written`);
        }
        const now = await readFile(lockPath, 'utf8').catch(() => null);
        if (now !== held.content) throw new UnavailableError(`the lock ${lockPath} was taken from this process; nothing was written`);
      },
    };
    try {
      return await fn(lock);
    } finally {
      await release(lockPath, held);
    }
  } finally {
    done();
    if (queues.get(lockPath) === mine) queues.delete(lockPath);
  }
}

interface Held {
  readonly content: string;
}

async function acquire(lockPath: string, timing: LockTiming, deadline: number): Promise<Held> {
  if (Date.now() > deadline) throw timedOut(lockPath, timing);
  const content = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), token: randomBytes(9).toString('base64url') });
  // The lock appears with its content whole: written aside once, then hard-linked
  // into place (which fails when a lock exists). A holder killed at any moment
  // leaves no lock or a readable one naming its pid, never an empty file that
  // only its age could judge.
  const pending = `${lockPath}-${process.pid}-${randomBytes(6).toString('hex')}.pending`;
  try {
    await writeFile(pending, content, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw fsError(`cannot create the lock ${lockPath}`, err);
  }
  try {
    let delay = 4;
    for (;;) {
      if (await tryCreate(lockPath, pending, content)) {
        await sweepPending(lockPath);
        return { content };
      }
      if (await breakIfStale(lockPath, timing.staleMs)) continue;
      const left = deadline - Date.now();
      if (left <= 0) throw timedOut(lockPath, timing);
      await sleep(Math.min(left, delay * (0.5 + Math.random())));
      delay = Math.min(delay * 2, 64);
    }
  } finally {
    await unlink(pending).catch(() => undefined);
  }
}

function timedOut(lockPath: string, timing: LockTiming): UnavailableError {
  return new UnavailableError(
    `timed out after ${timing.timeoutMs} ms waiting for the lock ${lockPath}; another process holds it (a live or paused svc process; remove the file only if no process does)`,
  );
}

async function release(lockPath: string, held: Held): Promise<void> {
  // Only remove our own lock: if ours was broken as stale, the file now belongs to someone else.
  const now = await readFile(lockPath, 'utf8').catch(() => null);
  if (now === held.content) await unlink(lockPath).catch(() => undefined);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
