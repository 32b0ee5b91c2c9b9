/**
 * Defect: a paused lock holder (Ctrl-Z, a paused VM) had its lock broken after
 * 10 s and, on resuming, wrote its old copy over newer state: a revocation was
 * undone. These tests pause a real holder process with SIGSTOP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors';
import { FileTokenStore, JsonFile } from '../../src/stores';
import { withFileLock } from '../../src/stores/file/lock-protocol';
import { NOW } from '../support/clock';
import { rejection } from '../support/errors';
import { record } from '../support/record';

const posix = process.platform !== 'win32';
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function home(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-auth-pause-'));
  dirs.push(dir);
  return join(dir, 'home');
}

function startHolder(dir: string, holdMs: number): { child: ChildProcess; held: Promise<void>; exited: Promise<number | null> } {
  const script = fileURLToPath(new URL('./lock-holder.fixture.ts', import.meta.url));
  const cwd = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, String(holdMs)], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const held = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('held\n')) resolve();
    });
    child.on('close', (code) => reject(new Error(`holder exited ${code} before holding the lock: ${err}`)));
  });
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, held, exited };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!posix)('file lock: paused and dead holders', () => {
  it('paused holder: a SIGSTOPped process keeps its lock past the stale time; a revocation reported as failed has no later effect, one reported done stays done', async () => {
    const dir = await home();
    const store = new FileTokenStore(dir, { lockTimeoutMs: 700, staleLockMs: 50 });
    await store.insert(record({ id: 't1', name: 'victim' }), NOW);

    const holder = startHolder(dir, 200);
    await holder.held;
    holder.child.kill('SIGSTOP');
    await sleep(300); // well past staleLockMs

    // The old code broke the lock here, revoked, and the holder then wrote its stale copy back.
    const first = await store.revoke(['t1'], NOW).then(
      (ids) => ({ ok: true as const, ids }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    expect(first.ok).toBe(false);
    if (!first.ok) expect(first.err).toBeInstanceOf(UnavailableError);
    expect(JSON.parse(await readFile(store.file.lockPath, 'utf8'))).toMatchObject({ pid: holder.child.pid });

    holder.child.kill('SIGCONT');
    expect(await holder.exited).toBe(0);
    // The holder's change landed; the failed revocation did not land later.
    expect(await store.readChain('from-paused')).not.toBeNull();
    expect((await store.readChain('t1'))?.[0]?.revokedAt).toBeNull();

    // Revoking now succeeds, and nothing undoes it.
    expect(await store.revoke(['t1'], NOW)).toEqual(['t1']);
    expect((await store.readChain('t1'))?.[0]?.revokedAt).toEqual(NOW);
    expect(existsSync(store.file.lockPath)).toBe(false);
  }, 30_000);

  it('dead holder: a lock left by a SIGKILLed process is broken at once', async () => {
    const dir = await home();
    const store = new FileTokenStore(dir, { lockTimeoutMs: 3_000, staleLockMs: 600_000 });
    await store.insert(record({ id: 't1' }), NOW);
    const holder = startHolder(dir, 60_000);
    await holder.held;
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(existsSync(store.file.lockPath)).toBe(true);
    expect(await store.revoke(['t1'], NOW)).toEqual(['t1']);
    expect(await store.readChain('from-paused')).toBeNull();
  }, 30_000);

  it('deadline: an update whose work outlasts its budget writes nothing and says so', async () => {
    const dir = await home();
    const file = new JsonFile<{ v: number }>(join(dir, 'x.json'), { lockTimeoutMs: 100 });
    await file.update(() => ({ v: 1 }));
    const err = await rejection(
      file.update(async () => {
        await sleep(250);
        return { v: 2 };
      }),
    );
    expect(err).toMatchObject({ code: 'unavailable' });
    await sleep(50);
    expect(await file.read()).toEqual({ v: 1 });
  });

  it('ownership: a holder whose lock file was replaced by another holding does not commit', async () => {
    const dir = await home();
    const file = new JsonFile<{ v: number }>(join(dir, 'y.json'), { lockTimeoutMs: 2_000 });
    await file.update(() => ({ v: 1 }));
    const foreign = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), token: 'someone-else' });
    const err = await rejection(
      file.update(async () => {
        await writeFile(file.lockPath, foreign);
        return { v: 2 };
      }),
    );
    expect(err).toMatchObject({ code: 'unavailable' });
    expect(await file.read()).toEqual({ v: 1 });
    // Release leaves a lock that is not ours in place.
    expect(await readFile(file.lockPath, 'utf8')).toBe(foreign);
  });

  it('withFileLock hands fn a check that passes while the lock is ours and in budget', async () => {
    const dir = await home();
    const lockPath = join(dir, 'z.lock');
    await mkdir(dir, { recursive: true });
    const deadline = await withFileLock(lockPath, { timeoutMs: 1_000, staleMs: 1_000 }, async (lock) => {
      await lock.check();
      return lock.deadline;
    });
    expect(deadline).toBeGreaterThan(0);
    expect(existsSync(lockPath)).toBe(false);
  });
});
