/**
 * `require('svc-auth/testing')` says that the subpath is ESM-only and how to load it, rather than
 * Node's "Package subpath './testing' is not defined by exports". Checked from the packed tarball
 * (`npm pack --ignore-scripts` of the built dist, unpacked into an empty project's node_modules),
 * so the file ships and the "exports" map resolves it where a user's code would. CI builds before
 * it tests; without a build the check is skipped with a warning, and with CI set it fails instead.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers';

const run = promisify(execFile);
const BUILT = existsSync(join(ROOT, 'dist/testing.cjs')) && existsSync(join(ROOT, 'dist/testing.js'));

async function node(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('svc-auth/testing from CommonJS', () => {
  it('package.json sends require() of ./testing to a CommonJS file and import to the ES module', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports['./testing']).toEqual({
      types: './dist/testing.d.ts',
      import: './dist/testing.js',
      require: './dist/testing.cjs',
    });
  });

  if (!BUILT && process.env.CI) {
    it('needs the build in CI', () => {
      expect.fail('dist/testing.cjs is missing: CI must run npm run build before the tests');
    });
  } else if (!BUILT) {
    console.warn('dist/ is not built: skipping the require(svc-auth/testing) checks (test/cli/testing-require.test.ts)');
  }

  // An empty project with the packed package unpacked into node_modules/svc-auth: requiring the
  // stub needs no dependency installed, so no registry is involved.
  let work = '';
  let app = '';
  beforeAll(async () => {
    if (!BUILT) return;
    work = await mkdtemp(join(tmpdir(), 'svc-auth-testing-cjs-'));
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: ROOT });
    const tarball = join(work, stdout.trim().split('\n').pop() ?? '');
    app = join(work, 'app');
    await mkdir(join(app, 'node_modules'), { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', join(app, 'node_modules')]);
    await rename(join(app, 'node_modules', 'package'), join(app, 'node_modules', 'svc-auth'));
  }, 60_000);
  afterAll(async () => {
    if (work !== '') await rm(work, { recursive: true, force: true });
  });

  it.skipIf(!BUILT)('require("svc-auth/testing") throws an Error that says ESM-only and shows the import to write', async () => {
    const r = await node(['-e', "require('svc-auth/testing')"], app);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: svc-auth/testing is ESM-only');
    expect(r.stderr).toContain("import { tokenStoreConformance } from 'svc-auth/testing'");
    expect(r.stderr).toContain("code: 'ERR_REQUIRE_ESM'");
    expect(r.stderr).not.toContain('not defined by "exports"');
    // Caught, it is an ordinary Error with Node's code for require() of an ES module.
    const caught = await node(
      [
        '-e',
        "try { require('svc-auth/testing') } catch (e) { console.log(JSON.stringify([e instanceof Error, e.code, require.resolve('svc-auth/testing')])) }",
      ],
      app,
    );
    expect(JSON.parse(caught.stdout)).toEqual([true, 'ERR_REQUIRE_ESM', join(app, 'node_modules/svc-auth/dist/testing.cjs')]);
  });

  it.skipIf(!BUILT)('import still resolves to the ES module', async () => {
    const r = await node(['--input-type=module', '-e', "console.log(import.meta.resolve('svc-auth/testing'))"], app);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`file://${join(app, 'node_modules/svc-auth/dist/testing.js')}`);
  });
});
