/**
 * The lock file itself: creating it whole (hard link from a pending copy, or
 * in place where links are not supported), reading its holder, and breaking
 * it only when that holder is known to be dead (see lock-protocol.ts).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { link, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { codeOf, fsError } from './fs-errors';

/** @internal `true` when this process now holds the lock, `false` when another does. */
export async function tryCreate(lockPath: string, pending: string, content: string): Promise<boolean> {
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
export async function sweepPending(lockPath: string): Promise<void> {
  const prefix = `${basename(lockPath)}-`;
  const names = await readdir(dirname(lockPath)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.pending')) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!isAlive(pid)) await unlink(join(dirname(lockPath), name)).catch(() => undefined);
  }
}

/** `true` when the lock is gone or was broken (try again at once), `false` when it is held. */
export async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
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
