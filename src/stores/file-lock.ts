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
import { link, open, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { UnavailableError } from '../errors';

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

async function tryCreate(lockPath: string, pending: string, content: string): Promise<boolean> {
  try {
    await link(pending, lockPath);
    return true;
  } catch (err) {
    const code = codeOf(err);
    if (code === 'EEXIST') return false;
    // File systems without hard links: create in place (a crash there can leave an empty lock, judged by age).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return createInPlace(lockPath, content);
    throw fsError(`cannot create the lock ${lockPath}`, err);
  }
}

async function createInPlace(lockPath: string, content: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(lockPath, 'wx', 0o600);
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false;
    throw fsError(`cannot create the lock ${lockPath}`, err);
  }
  try {
    await fh.writeFile(content);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(lockPath).catch(() => undefined);
    throw fsError(`cannot write the lock ${lockPath}`, err);
  }
  await fh.close().catch(() => undefined);
  return true;
}

/** Remove pending lock files of processes that died before they could (best effort). */
async function sweepPending(lockPath: string): Promise<void> {
  const prefix = `${basename(lockPath)}-`;
  const names = await readdir(dirname(lockPath)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.pending')) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!isAlive(pid)) await unlink(join(dirname(lockPath), name)).catch(() => undefined);
  }
}

/** `true` when the lock is gone or was broken (try again at once), `false` when it is held. */
async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const seen = await inspect(lockPath);
  if (seen === null) return true;
  const info = parseLock(seen.content);
  // A holder on another host cannot be checked, so it is never judged dead.
  const abandoned = info === null ? Date.now() - seen.mtimeMs > staleMs : info.host === hostname() && !isAlive(info.pid);
  if (!abandoned) return false;

  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return true;
    throw fsError(`cannot break the stale lock ${lockPath}`, err);
  }
  const moved = await inspect(aside);
  if (moved === null || moved.ino === seen.ino) {
    await unlink(aside).catch(() => undefined);
    return true;
  }
  // We moved a lock taken after we looked: put it back, unless yet another was taken meanwhile.
  await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return false;
}

async function inspect(path: string): Promise<{ ino: number; mtimeMs: number; content: string } | null> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return null;
    throw fsError(`cannot read the lock ${path}`, err);
  }
  try {
    const st = await fh.stat();
    const content = await fh.readFile('utf8');
    return { ino: st.ino, mtimeMs: st.mtimeMs, content };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

async function release(lockPath: string, held: Held): Promise<void> {
  // Only remove our own lock: if ours was broken as stale, the file now belongs to someone else.
  const now = await readFile(lockPath, 'utf8').catch(() => null);
  if (now === held.content) await unlink(lockPath).catch(() => undefined);
}

function parseLock(text: string): { pid: number; host: string; time: number } | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return null;
    const { pid, host, time } = v as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return null;
    if (typeof host !== 'string' || typeof time !== 'number' || !Number.isFinite(time)) return null;
    return { pid: pid as number, host, time };
  } catch {
    return null;
  }
}

/**
 * Is process `pid` alive on this machine? Signal 0 checks without signalling;
 * EPERM means it exists but belongs to another user.
 *
 * @example
 * ```ts
 * isAlive(process.pid); // true
 * ```
 */
export function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return codeOf(err) === 'EPERM';
  }
}

/**
 * @internal The `code` of a Node.js system error, if any.
 *
 * @example
 * ```ts
 * codeOf(err) === 'ENOENT';
 * ```
 */
export function codeOf(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * @internal An `UnavailableError` for a failed file operation; names the system error code, never file contents.
 *
 * @example
 * ```ts
 * throw fsError('cannot read /x/tokens.json', err);
 * ```
 */
export function fsError(what: string, err: unknown): UnavailableError {
  const code = codeOf(err);
  return new UnavailableError(code ? `${what}: ${code}` : what, { cause: err });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
