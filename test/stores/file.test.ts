import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnavailableError, ValidationError } from '../../src/errors';
import { FileMembershipStore, FileTokenStore, JsonFile } from '../../src/stores';
import { tokenStoreConformance } from '../../src/testing';
import { LATER, NOW } from '../support/clock';
import { rejection } from '../support/errors';
import { record } from '../support/record';

const made: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-auth-file-'));
  made.push(dir);
  return dir;
}
async function removeAll(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

const homes = new WeakMap<FileTokenStore, string>();
tokenStoreConformance(
  'FileTokenStore',
  async () => {
    const dir = await tempDir();
    const store = new FileTokenStore(join(dir, 'home'));
    homes.set(store, dir);
    return store;
  },
  {
    cleanup: (store) => rm(homes.get(store) as string, { recursive: true, force: true }),
    // A second process on the same SVC_HOME.
    twin: (store) => new FileTokenStore(join(homes.get(store) as string, 'home')),
  },
);

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.pid).toBeGreaterThan(0);
  return child.pid as number;
}
const lockText = (pid: number, time: number, host = hostname()): string => JSON.stringify({ pid, host, time, token: 'other' });

describe('FileTokenStore and FileMembershipStore', () => {
  let home: string;
  beforeEach(async () => {
    home = join(await tempDir(), 'svc-home');
  });
  afterEach(removeAll);

  it('C3: the directory is created with mode 0700 and the files with mode 0600', async () => {
    expect(existsSync(home)).toBe(false);
    await new FileTokenStore(home).insert(record({ id: 't1' }), NOW);
    await new FileMembershipStore(home).set('alice', 'acme', 'editor');
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    expect((await stat(join(home, 'tokens.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'members.json'))).mode & 0o777).toBe(0o600);
    expect((await readdir(home)).sort()).toEqual(['members.json', 'tokens.json']);
  });

  it('reads create nothing: a missing home reads as empty', async () => {
    const store = new FileTokenStore(home);
    expect(await store.readChain('x')).toBeNull();
    expect(await store.listByOwner('alice')).toEqual([]);
    expect(await new FileMembershipStore(home).rolesOf('alice')).toEqual({ orgs: {}, repos: {} });
    expect(existsSync(home)).toBe(false);
  });

  it('dates are stored as ISO strings and come back as Dates', async () => {
    await new FileTokenStore(home).insert(
      record({ id: 't1', scopes: [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: [] }] }),
      NOW,
    );
    const raw = JSON.parse(await readFile(join(home, 'tokens.json'), 'utf8')) as { tokens: Record<string, unknown>[] };
    expect(raw.tokens[0]?.createdAt).toBe('2030-01-01T00:00:00.000Z');
    const [got] = (await new FileTokenStore(home).readChain('t1')) ?? [];
    expect(got?.expiresAt).toEqual(LATER);
    expect(got?.scopes).toEqual([{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: [] }]);
  });

  it('C3: 12 parallel processes each inserting and updating lose nothing', async () => {
    const script = fileURLToPath(new URL('./file-worker.fixture.ts', import.meta.url));
    const cwd = fileURLToPath(new URL('../..', import.meta.url));
    const count = 4;
    const outputs = await Promise.all(
      Array.from(
        { length: 12 },
        (_, w) =>
          new Promise<string[]>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', script, home, String(w), String(count)], {
              cwd,
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            child.on('error', reject);
            child.on('close', (code) =>
              code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`worker ${w} exited ${code}: ${err}`)),
            );
          }),
      ),
    );
    const shared = outputs.map((o) => o[0]);
    expect(shared.filter((r) => r === 'ok')).toHaveLength(1);
    expect(shared.filter((r) => r === 'name_taken')).toHaveLength(11);
    expect(outputs.flatMap((o) => o.slice(1)).every((r) => r === 'ok')).toBe(true);
    const store = new FileTokenStore(home);
    let total = 0;
    for (const owner of ['owner0', 'owner1', 'owner2']) total += (await store.listByOwner(owner)).length;
    expect(total).toBe(12 * count);
    expect(await store.listByOwner('contended')).toHaveLength(1);
    const list = await new FileMembershipStore(home).list();
    expect(list).toHaveLength(12 * count);
    expect((await readdir(home)).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('a stale lock left by a dead process is broken at once', async () => {
    const store = new FileTokenStore(home, { lockTimeoutMs: 5_000, staleLockMs: 600_000 });
    await store.insert(record({ id: 't0', name: 'first' }), NOW);
    const lock = join(home, 'tokens.json.lock');
    await writeFile(lock, lockText(deadPid(), Date.now()));
    expect(await store.insert(record({ id: 't1' }), NOW)).toBe('ok');
    expect(existsSync(lock)).toBe(false);
  });

  it('paused holder: a lock whose process lives is never broken by age, however old', async () => {
    const store = new FileTokenStore(home, { lockTimeoutMs: 150, staleLockMs: 10 });
    await store.insert(record({ id: 't0', name: 'first' }), NOW);
    const lock = join(home, 'tokens.json.lock');
    const held = lockText(process.pid, Date.now() - 60_000);
    await writeFile(lock, held);
    expect(await rejection(store.insert(record({ id: 't1' }), NOW))).toMatchObject({ code: 'unavailable' });
    expect(await readFile(lock, 'utf8')).toBe(held);
    expect(await store.readChain('t1')).toBeNull();
  });

  it('a lock file with no readable holder is judged by its file time', async () => {
    const store = new FileTokenStore(home, { lockTimeoutMs: 2_000, staleLockMs: 10_000 });
    await store.insert(record({ id: 't1' }), NOW);
    const lock = join(home, 'tokens.json.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await store.revoke(['t1'], NOW)).toEqual(['t1']);
    expect(existsSync(lock)).toBe(false);
  });

  it('a live, fresh lock is waited for and then refused with UnavailableError, and left in place', async () => {
    const store = new FileTokenStore(home, { lockTimeoutMs: 150 });
    await store.insert(record({ id: 't0' }), NOW);
    const lock = join(home, 'tokens.json.lock');
    const held = lockText(process.pid, Date.now());
    await writeFile(lock, held);
    expect(await rejection(store.insert(record({ id: 't1', name: 'other' }), NOW))).toBeInstanceOf(UnavailableError);
    // On another host the pid cannot be checked, so the lock is never broken.
    await writeFile(lock, lockText(deadPid(), Date.now(), `not-${hostname()}`));
    expect(await rejection(store.revoke(['t0'], NOW))).toBeInstanceOf(UnavailableError);
    await writeFile(lock, held);
    expect(await readFile(lock, 'utf8')).toBe(held);
    // Reads take no lock.
    expect(await store.readChain('t0')).not.toBeNull();
  });

  it('a corrupt tokens file (bad JSON) gives UnavailableError naming the file and is left untouched', async () => {
    const store = new FileTokenStore(home);
    await store.insert(record({ id: 't0' }), NOW);
    const file = join(home, 'tokens.json');
    const corrupt = '{"version":1,"tokens":[{"id":"t0",';
    await writeFile(file, corrupt);
    // Started one at a time: a rejection must not sit unobserved while an earlier call is awaited.
    const calls = [
      () => store.readChain('t0'),
      () => store.listByOwner('alice'),
      () => store.insert(record({ id: 't1', name: 'x' }), NOW),
      () => store.revoke(['t0'], NOW),
    ];
    for (const call of calls) {
      const err = await rejection(call());
      expect(err).toBeInstanceOf(UnavailableError);
      expect((err as UnavailableError).message).toContain(file);
    }
    expect(await readFile(file, 'utf8')).toBe(corrupt);
    expect((await readdir(home)).sort()).toEqual(['tokens.json']);
  });

  it('a tokens file of the wrong shape gives UnavailableError and is left untouched', async () => {
    const file = join(home, 'tokens.json');
    await new FileTokenStore(home).insert(record({ id: 't0' }), NOW);
    const good = JSON.parse(await readFile(file, 'utf8')) as { tokens: Record<string, unknown>[] };
    const t0 = good.tokens[0] as Record<string, unknown>;
    const shapes: unknown[] = [
      [],
      { version: 2, tokens: [] },
      { version: 1, tokens: [{ ...t0, expiresAt: 'next tuesday' }] },
      { version: 1, tokens: [{ ...t0, scopes: [{ permissions: ['repo:*'] }] }] },
      { version: 1, tokens: [{ ...t0, kind: 'oauth' }] },
      { version: 1, tokens: [t0, t0] },
    ];
    for (const shape of shapes) {
      const text = JSON.stringify(shape);
      await writeFile(file, text);
      const store = new FileTokenStore(home);
      expect(await rejection(store.listByOwner('alice'))).toBeInstanceOf(UnavailableError);
      expect(await rejection(store.insert(record({ id: 't9', name: 'n' }), NOW))).toBeInstanceOf(UnavailableError);
      expect(await readFile(file, 'utf8')).toBe(text);
    }
  });

  it('hostile file: a misspelled "allowedmatches" in a stored scope fails closed instead of loading an unrestricted entry', async () => {
    const file = join(home, 'tokens.json');
    const scopes = [{ resource: 'acme/web', permissions: ['repo:read' as const], allowedMatches: ['Doc/*'] }];
    await new FileTokenStore(home).insert(record({ id: 't0', scopes }), NOW);
    const tampered = [
      (await readFile(file, 'utf8')).replace('"allowedMatches"', '"allowedmatches"'),
      (await readFile(file, 'utf8')).replace('"allowedMatches"', '"__proto__": {}, "allowedMatches"'),
    ];
    for (const text of tampered) {
      expect(text).not.toBe(await readFile(file, 'utf8'));
      await writeFile(file, text);
      expect(await rejection(new FileTokenStore(home).readChain('t0'))).toBeInstanceOf(UnavailableError);
      expect(await readFile(file, 'utf8')).toBe(text);
    }
  });

  it('S4 hostile file: a __proto__ key in a record is ignored and pollutes nothing', async () => {
    const file = join(home, 'tokens.json');
    await new FileTokenStore(home).insert(record({ id: 't0' }), NOW);
    const text = (await readFile(file, 'utf8')).replace(
      '"id": "t0",',
      '"id": "t0", "__proto__": { "polluted": true, "revokedAt": "2030-01-01T00:00:00.000Z" },',
    );
    await writeFile(file, text);
    const [got] = (await new FileTokenStore(home).readChain('t0')) ?? [];
    expect(got?.revokedAt).toBeNull();
    expect(Object.keys(got ?? {})).not.toContain('__proto__');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('a corrupt members file gives UnavailableError and is left untouched', async () => {
    const members = new FileMembershipStore(home);
    await members.set('alice', 'acme', 'owner');
    const file = join(home, 'members.json');
    for (const text of ['not json', JSON.stringify({ version: 1, members: [{ user: 'alice', resource: '../x', role: 'owner' }] })]) {
      await writeFile(file, text);
      expect(await rejection(members.rolesOf('alice'))).toBeInstanceOf(UnavailableError);
      expect(await rejection(members.set('bob', 'acme', 'viewer'))).toBeInstanceOf(UnavailableError);
      expect(await readFile(file, 'utf8')).toBe(text);
    }
  });

  it('a crash mid-write (a leftover temp file) leaves the previous state readable; the next write sweeps it', async () => {
    const store = new FileTokenStore(home);
    await store.insert(record({ id: 't0' }), NOW);
    const tmp = join(home, `tokens.json.${deadPid()}.0123456789ab.tmp`);
    await writeFile(tmp, '{"version":1,"tokens":[{"id":"half');
    expect((await store.readChain('t0'))?.[0]?.id).toBe('t0');
    expect(await store.insert(record({ id: 't1', name: 'next' }), NOW)).toBe('ok');
    expect((await store.listByOwner('alice')).map((r) => r.id)).toEqual(['t0', 't1']);
    expect(existsSync(tmp)).toBe(false);
  });

  it('memberships persist across store instances; remove and list work on the file', async () => {
    await new FileMembershipStore(home).set('alice', 'Acme/Web', 'editor');
    await new FileMembershipStore(home).set('alice', 'acme', 'viewer');
    const m = new FileMembershipStore(home);
    expect(await m.rolesOf('alice')).toEqual({ orgs: { acme: 'viewer' }, repos: { 'acme/web': 'editor' } });
    expect(await m.remove('alice', 'ACME')).toBe(true);
    expect(await m.remove('alice', 'acme')).toBe(false);
    expect(await m.list()).toEqual([{ user: 'alice', resource: 'acme/web', role: 'editor' }]);
    expect(await rejection(m.set('alice', 'acme', 'root' as never))).toBeInstanceOf(ValidationError);
  });

  it('misuse fails when the store is built: bad dir or timing options', () => {
    expect(() => new FileTokenStore('')).toThrow(ValidationError);
    expect(() => new FileTokenStore(home, { lockTimeoutMs: -1 })).toThrow(ValidationError);
    expect(() => new FileMembershipStore(home, { staleLockMs: Number.NaN })).toThrow(ValidationError);
    expect(() => new FileTokenStore(home, null as never)).toThrow(ValidationError);
  });

  it('bad arguments reject with ValidationError before any file is touched', async () => {
    const store = new FileTokenStore(home);
    expect(await rejection(store.insert({ ...record({ id: 't1' }), createdAt: 'now' } as never, NOW))).toBeInstanceOf(ValidationError);
    expect(await rejection(store.revoke('t1' as never, NOW))).toBeInstanceOf(ValidationError);
    expect(await rejection(store.readChain(null as never))).toBeInstanceOf(ValidationError);
    expect(existsSync(home)).toBe(false);
  });
});

describe('JsonFile', () => {
  afterEach(removeAll);

  it('update returning undefined writes nothing; a throwing update writes nothing and releases the lock', async () => {
    const path = join(await tempDir(), 'state', 'session.json');
    const file = new JsonFile<{ user: string }>(path);
    expect(await file.update(() => undefined)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    await file.update(() => ({ user: 'alice' }));
    const boom = new ValidationError('no');
    expect(
      await rejection(
        file.update(() => {
          throw boom;
        }),
      ),
    ).toBe(boom);
    expect(await file.read()).toEqual({ user: 'alice' });
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(await file.update((cur) => ({ user: `${cur?.user}-2` }))).toEqual({ user: 'alice-2' });
  });

  it('parallel updates in one process are serialized: none is lost', async () => {
    const file = new JsonFile<{ n: number }>(join(await tempDir(), 'counter.json'));
    await Promise.all(Array.from({ length: 25 }, () => file.update((cur) => ({ n: (cur?.n ?? 0) + 1 }))));
    expect(await file.read()).toEqual({ n: 25 });
  });

  it('mode is honoured (0600 by default) and parse errors become UnavailableError', async () => {
    const dir = await tempDir();
    const open = new JsonFile<number>(join(dir, 'public.json'), { mode: 0o644 });
    await open.update(() => 1);
    expect((await stat(open.path)).mode & 0o777).toBe(0o644);
    const strict = new JsonFile<number>(open.path, {
      parse: (d) => {
        if (d !== 2) throw new ValidationError([{ path: 'value', message: 'expected 2' }]);
        return 2;
      },
    });
    expect(await rejection(strict.read())).toBeInstanceOf(UnavailableError);
  });

  it('misuse fails when the object is built', () => {
    expect(() => new JsonFile('')).toThrow(ValidationError);
    expect(() => new JsonFile('x.json', { mode: 0o1000 })).toThrow(ValidationError);
    expect(() => new JsonFile('x.json', { lockTimeoutMs: 0 })).toThrow(ValidationError);
    expect(() => new JsonFile('x.json', { staleLockMs: Infinity })).toThrow(ValidationError);
  });
});
