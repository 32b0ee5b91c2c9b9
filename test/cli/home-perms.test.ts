/** Defect 7: a world-writable SVC_HOME or a keys.json readable by others was used silently. */
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevServer, secureHome, openInstance } from '../../src/app/dev';

const posix = typeof process.getuid === 'function';
const dirs: string[] = [];
afterEach(() => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))));

async function home(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-perms-'));
  dirs.push(dir);
  return join(dir, 'home');
}
const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

describe.skipIf(!posix)('SVC_HOME permissions', () => {
  it('world-writable SVC_HOME and a keys.json readable by others are tightened, and the user is told', async () => {
    const h = await home();
    const first = await openInstance({ SVC_HOME: h });
    await first.close();
    await chmod(h, 0o777);
    await chmod(join(h, 'keys.json'), 0o644);
    const notices: string[] = [];
    const dev = await openInstance({ SVC_HOME: h }, { notice: (t) => notices.push(t) });
    await dev.close();
    expect(await modeOf(h)).toBe(0o700);
    expect(await modeOf(join(h, 'keys.json'))).toBe(0o600);
    expect(notices).toHaveLength(2);
    expect(notices.join('\n')).toMatch(/0777.*0700/);
    expect(notices.join('\n')).toMatch(/keys\.json.*0644.*0600/);
  });

  it('svc serve says so too: a home tightened when the dev server opens it is in its log', async () => {
    const h = await home();
    await (await openInstance({ SVC_HOME: h })).close();
    await chmod(h, 0o777);
    const lines: string[] = [];
    const dev = await createDevServer({ env: { SVC_HOME: h }, log: (line) => lines.push(line) });
    await dev.close();
    expect(await modeOf(h)).toBe(0o700);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: SVC_HOME .*0777.*0700/);
  });

  it('a tight home says nothing', async () => {
    const h = await home();
    await (await openInstance({ SVC_HOME: h })).close();
    const notices: string[] = [];
    await secureHome(h, (t) => notices.push(t));
    expect(notices).toEqual([]);
  });

  it.skipIf(!posix || process.getuid?.() !== 0)('planted home: a world-writable SVC_HOME of another user is refused', async () => {
    const h = await home();
    await mkdir(h);
    await writeFile(join(h, 'keys.json'), '{"keys":[]}');
    await chown(h, 65534, 65534);
    await chmod(h, 0o777);
    const err = await openInstance({ SVC_HOME: h }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'unavailable' });
    expect(await modeOf(h)).toBe(0o777);
  });

  it('SVC_HOME that is a file is refused', async () => {
    const h = await home();
    await mkdir(join(h, '..'), { recursive: true });
    await writeFile(h, 'not a folder');
    await expect(openInstance({ SVC_HOME: h })).rejects.toMatchObject({ code: 'unavailable' });
  });
});
