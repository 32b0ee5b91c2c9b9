/**
 * A lock file shared by processes on one machine, for locked read-modify-write
 * of small state files (the CLI's dev instance).
 *
 * The lock is a file created with `O_EXCL` (`open(path, 'wx')`), which exactly
 * one process can win, holding `{ pid, host, time, token }`. A lock whose process
 * is gone (same host, `kill(pid, 0)` gives ESRCH), or older than `staleMs`, is
 * broken: it is first renamed aside and checked to be the very file judged
 * stale (same inode), so a racing process cannot delete a lock that was taken
 * meanwhile. Waiters retry with short jittered sleeps until `timeoutMs`.
 * Within one process, callers of the same lock queue in memory first, so they
 * never poll against each other.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
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
  /** Give up waiting after this long (then `UnavailableError`). */
  readonly timeoutMs: number;
  /** A lock older than this is taken to be abandoned and broken. */
  readonly staleMs: number;
}

const queues = new Map<string, Promise<void>>();

/**
 * Run `fn` while holding the lock file `lockPath`, then release it, whatever `fn` does.
 * Rejects with `UnavailableError` when the lock cannot be had within `timing.timeoutMs`.
 *
 * @example
 * ```ts
 * await withFileLock('/home/me/.svc/keys.json.lock', { timeoutMs: 10_000, staleMs: 10_000 }, async () => {
 *   // read, change and atomically replace keys.json here
 * });
 * ```
 */
export async function withFileLock<T>(lockPath: string, timing: LockTiming, fn: () => Promise<T>): Promise<T> {
  const prev = queues.get(lockPath) ?? Promise.resolve();
  let done!: () => void;
  const mine = prev.then(() => new Promise<void>((resolve) => (done = resolve)));
  queues.set(lockPath, mine);
  try {
    await prev;
    const held = await acquire(lockPath, timing);
    try {
      return await fn();
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

async function acquire(lockPath: string, timing: LockTiming): Promise<Held> {
  const deadline = Date.now() + timing.timeoutMs;
  let delay = 4;
  for (;;) {
    const content = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), token: randomBytes(9).toString('base64url') });
    if (await tryCreate(lockPath, content)) return { content };
    if (await breakIfStale(lockPath, timing.staleMs)) continue;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new UnavailableError(
        `timed out after ${timing.timeoutMs} ms waiting for the lock ${lockPath}; another process holds it (remove the file if no process does)`,
      );
    }
    await sleep(Math.min(left, delay * (0.5 + Math.random())));
    delay = Math.min(delay * 2, 64);
  }
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
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

/** `true` when the lock is gone or was broken (try again at once), `false` when it is live. */
async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  const seen = await inspect(lockPath);
  if (seen === null) return true;
  const info = parseLock(seen.content);
  const age = Date.now() - (info ? info.time : seen.mtimeMs);
  const dead = info !== null && info.host === hostname() && !isAlive(info.pid);
  if (!dead && age <= staleMs) return false;

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
