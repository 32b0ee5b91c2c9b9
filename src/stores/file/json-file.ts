/**
 * A JSON state file that several processes may change at once: every change is
 * a locked read-modify-write ending in an atomic replace (temp file in the same
 * directory, fsync, rename, fsync of the directory). A reader never needs the
 * lock, because a rename is atomic: it sees the old file or the new one, never
 * half of one. A crash leaves the previous file plus, at worst, a stray temp
 * file that the next writer sweeps away.
 *
 * A file that is not valid JSON, or not of the expected shape, is reported as
 * `UnavailableError` naming the file, and is never replaced: state a person may
 * want back is not overwritten by a guess.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SvcAuthError, UnavailableError, ValidationError } from '../../errors';
import { withFileLock, type HeldLock, type LockTiming } from './lock-protocol';
import { codeOf, fsError } from './fs-errors';
import { isAlive } from './lock-on-disk';

/**
 * Options of {@link JsonFile}.
 *
 * @example
 * ```ts
 * const options: JsonFileOptions<{ user: string }> = {
 *   mode: 0o600,
 *   parse: (data) => { if (typeof (data as any)?.user !== 'string') throw new Error('no user'); return data as { user: string }; },
 * };
 * ```
 */
export interface JsonFileOptions<T> {
  /** File mode of the file (default `0o600`: state files may hold secrets). */
  mode?: number;
  /** Mode of the directory when this creates it (default `0o700`). */
  dirMode?: number;
  /** Check and convert what was read (after `JSON.parse`); throw when the shape is wrong. Default: taken as is. */
  parse?: (data: unknown) => T;
  /** Convert a value into what is written with `JSON.stringify`. Default: the value itself. */
  serialize?: (value: T) => unknown;
  /**
   * Budget of one update, from the call to the commit: queueing, waiting for the
   * lock, and the work (default 4 000 ms, below the service's 5 000 ms store
   * deadline, so an update the service reported as failed never lands later).
   * Past it the update rejects with `UnavailableError` and writes nothing.
   */
  lockTimeoutMs?: number;
  /**
   * Age after which a lock file with no readable holder is taken to be abandoned
   * (default 10 000 ms). A lock whose holder process lives is never broken.
   */
  staleLockMs?: number;
  /** What the file holds, for error messages (default `'state file'`). */
  label?: string;
}

/** Below the service's default store deadline (5 000 ms): a reported failure has no later effect. */
const DEFAULT_TIMING: LockTiming = { timeoutMs: 4_000, staleMs: 10_000 };
const MAX_WAIT_MS = 10 * 60_000;

/**
 * One JSON file with locked, atomic updates and lock-free reads.
 *
 * @example
 * ```ts
 * import { JsonFile } from 'svc-auth';
 * const session = new JsonFile<{ user: string }>(`${home}/session.json`, { mode: 0o600 });
 * await session.update(() => ({ user: 'alice' }));
 * await session.read(); // { user: 'alice' }
 * // read-modify-write; return undefined to leave the file as it is
 * await session.update((cur) => (cur?.user === 'alice' ? undefined : { user: 'alice' }));
 * ```
 */
export class JsonFile<T> {
  /** Absolute path of the file. */
  readonly path: string;
  private readonly dir: string;
  private readonly mode: number;
  private readonly dirMode: number;
  private readonly timing: LockTiming;
  private readonly label: string;
  private readonly parseFn: ((data: unknown) => T) | undefined;
  private readonly serializeFn: ((value: T) => unknown) | undefined;

  /** The budget of one update, lock wait included (`lockTimeoutMs`), in milliseconds. */
  get budgetMs(): number {
    return this.timing.timeoutMs;
  }

  constructor(path: string, options: JsonFileOptions<T> = {}) {
    if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
      throw new ValidationError([{ path: 'path', message: 'expected a non-empty file path' }]);
    }
    this.path = resolve(path);
    this.dir = dirname(this.path);
    this.mode = fileMode(options.mode, 0o600, 'mode');
    this.dirMode = fileMode(options.dirMode, 0o700, 'dirMode');
    this.timing = {
      timeoutMs: duration(options.lockTimeoutMs, DEFAULT_TIMING.timeoutMs, 'lockTimeoutMs'),
      staleMs: duration(options.staleLockMs, DEFAULT_TIMING.staleMs, 'staleLockMs'),
    };
    this.label = typeof options.label === 'string' && options.label ? options.label : 'state file';
    this.parseFn = options.parse;
    this.serializeFn = options.serialize;
  }

  /** The lock file guarding updates. */
  get lockPath(): string {
    return `${this.path}.lock`;
  }

  /**
   * The current value, or `undefined` when the file does not exist. Takes no lock.
   * Rejects with `UnavailableError` when the file cannot be read or is corrupt.
   */
  async read(): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if (codeOf(err) === 'ENOENT') return undefined;
      throw fsError(`cannot read the ${this.label} ${this.path}`, err);
    }
    return this.decode(text);
  }

  /**
   * Under the lock, read the current value (`undefined` when there is no file),
   * compute the next with `fn` and replace the file atomically; resolves to the
   * value now in the file. When `fn` returns `undefined`, nothing is written (no
   * change). When `fn` throws, nothing is written and the error is passed on.
   * When the budget (`lockTimeoutMs`) is spent before the commit, or the lock
   * is no longer this process's, nothing is written (`UnavailableError`).
   * The directory is created (mode `dirMode`) if missing.
   */
  async update(fn: (current: T | undefined) => T | undefined | Promise<T | undefined>): Promise<T | undefined> {
    await this.ensureDir();
    return withFileLock(this.lockPath, this.timing, async (lock) => {
      const current = await this.read();
      const next = await fn(current);
      if (next === undefined) return current;
      await this.sweepTemps();
      await this.write(next, lock);
      return next;
    });
  }

  private decode(text: string): T {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new UnavailableError(
        `the ${this.label} ${this.path} is corrupt (not valid JSON); it was left untouched: repair it or move it away`,
        { cause: err },
      );
    }
    if (this.parseFn === undefined) return data as T;
    try {
      return this.parseFn(data);
    } catch (err) {
      const detail =
        err instanceof ValidationError
          ? `: ${err.issues
              .slice(0, 3)
              .map((i) => `${i.pathText || '(file)'} ${i.message}`)
              .join('; ')}`
          : '';
      throw new UnavailableError(
        `the ${this.label} ${this.path} is corrupt (unexpected shape${detail}); it was left untouched: repair it or move it away`,
        { cause: err },
      );
    }
  }

  private async write(value: T, lock: HeldLock): Promise<void> {
    const text = JSON.stringify(this.serializeFn ? this.serializeFn(value) : value, null, 2);
    if (typeof text !== 'string') throw new ValidationError([{ path: 'value', message: 'the new value has no JSON form' }]);
    const tmp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const fh = await open(tmp, 'wx', this.mode);
      try {
        // open's mode is filtered by the umask; set it exactly.
        await fh.chmod(this.mode);
        await fh.writeFile(`${text}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      // The commit point: only the lock's holder, within the budget, may replace the file.
      await lock.check();
      await rename(tmp, this.path);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err instanceof SvcAuthError ? err : fsError(`cannot write the ${this.label} ${this.path}`, err);
    }
    await syncDir(this.dir);
  }

  private async ensureDir(): Promise<void> {
    try {
      const made = await mkdir(this.dir, { recursive: true, mode: this.dirMode });
      // mkdir's mode is filtered by the umask; set it exactly on the directory we made.
      if (made !== undefined) await chmod(this.dir, this.dirMode);
    } catch (err) {
      throw fsError(`cannot create the directory ${this.dir}`, err);
    }
  }

  /** Remove temp files left by writers that died mid-write; run under the lock, so none is in use. */
  private async sweepTemps(): Promise<void> {
    const prefix = `${basename(this.path)}.`;
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const pid = Number(name.slice(prefix.length).split('.')[0]);
      const full = join(this.dir, name);
      const old = await stat(full).then(
        (s) => Date.now() - s.mtimeMs > this.timing.staleMs,
        () => false,
      );
      if (pid === process.pid || !isAlive(pid) || old) await unlink(full).catch(() => undefined);
    }
  }
}

async function syncDir(dir: string): Promise<void> {
  // Makes the rename itself durable. Some platforms cannot open a directory; the rename stands anyway.
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* best effort */
  }
}

function fileMode(value: unknown, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 0o777) {
    throw new ValidationError([{ path, message: 'expected a file mode from 0 to 0o777' }]);
  }
  return value as number;
}

function duration(value: unknown, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_WAIT_MS) {
    throw new ValidationError([{ path, message: `expected a number of milliseconds from 1 to ${MAX_WAIT_MS}` }]);
  }
  return value;
}
