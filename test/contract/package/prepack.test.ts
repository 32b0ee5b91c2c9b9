/**
 * `npm pack` does not rebuild what `npm run build` just built: scripts/prepack.mjs builds only when the
 * build stamp (scripts/build-stamp.mjs) says dist/ is not what the current sources, lockfile and build
 * configuration make. Run in a small project of its own whose build is cheap and counts its runs,
 * with the repository's own stamp and prepack scripts, through `npm pack` as a user would.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'svc-auth-prepack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The fixture's build: what scripts/build.mjs does around tsup, with one file for a bundle.
const BUILD = `import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { inputDigest, writeStamp } from './scripts/build-stamp.mjs';
const inputs = inputDigest('.');
mkdirSync('dist', { recursive: true });
writeFileSync('dist/index.js', readFileSync('src/index.ts', 'utf8'));
appendFileSync('builds.log', 'build\\n');
writeStamp('.', inputs);
`;

const builds = (): number =>
  existsSync(join(dir, 'builds.log')) ? readFileSync(join(dir, 'builds.log'), 'utf8').split('\n').length - 1 : 0;
function pack(): string {
  const r = spawnSync('npm', ['pack', '--dry-run', '--silent'], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stderr;
}

beforeAll(() => {
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'src'));
  for (const f of ['build-stamp.mjs', 'prepack.mjs']) copyFileSync(join(ROOT, 'scripts', f), join(dir, 'scripts', f));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'prepack-fixture',
      version: '1.0.0',
      type: 'module',
      files: ['dist'],
      scripts: { build: 'node build.mjs', prepack: 'node scripts/prepack.mjs' },
    }),
  );
  writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
  writeFileSync(join(dir, 'build.mjs'), BUILD);
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const a = 1;\n');
});

describe('prepack (scripts/prepack.mjs)', { timeout: 120_000 }, () => {
  it('is what the package runs: `npm pack` calls scripts/prepack.mjs, which runs `npm run build`', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepack).toBe('node scripts/prepack.mjs');
    expect(pkg.scripts.build).toBe('node scripts/build.mjs');
  });

  it('builds when there is no build yet', () => {
    expect(pack()).toMatch(/prepack: building: no build stamp/);
    expect(builds()).toBe(1);
  });

  it('skips the build when dist/ is fresh, however often it packs', () => {
    expect(pack()).toMatch(/prepack: not rebuilding: dist\/ was built from these sources/);
    pack();
    expect(builds()).toBe(1);
  });

  it('skips after `npm run build` too (the build writes the stamp)', () => {
    expect(spawnSync('npm', ['run', 'build', '--silent'], { cwd: dir }).status).toBe(0);
    expect(builds()).toBe(2);
    expect(pack()).toMatch(/not rebuilding/);
    expect(builds()).toBe(2);
  });

  it('rebuilds when a source changed, then skips again', () => {
    appendFileSync(join(dir, 'src', 'index.ts'), 'export const b = 2;\n');
    expect(pack()).toMatch(/prepack: building: sources, lockfile or build configuration changed/);
    expect(builds()).toBe(3);
    expect(readFileSync(join(dir, 'dist', 'index.js'), 'utf8')).toContain('b = 2');
    expect(pack()).toMatch(/not rebuilding/);
    expect(builds()).toBe(3);
  });

  it('rebuilds when a new source file appears', () => {
    writeFileSync(join(dir, 'src', 'more.ts'), 'export {};\n');
    expect(pack()).toMatch(/building/);
    expect(builds()).toBe(4);
  });

  it('rebuilds when the lockfile changed (other tools or bundled packages)', () => {
    writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n');
    expect(pack()).toMatch(/building/);
    expect(builds()).toBe(5);
  });

  it('rebuilds when dist/ was edited or emptied after the build', () => {
    writeFileSync(join(dir, 'dist', 'index.js'), 'tampered\n');
    expect(pack()).toMatch(/prepack: building: dist\/ changed since the last build/);
    expect(builds()).toBe(6);
    rmSync(join(dir, 'dist'), { recursive: true });
    expect(pack()).toMatch(/building/);
    expect(builds()).toBe(7);
  });

  it('fails the pack when the build fails, and the next pack builds again', () => {
    writeFileSync(join(dir, 'build.mjs'), 'process.exit(3);\n');
    appendFileSync(join(dir, 'src', 'index.ts'), '// edit\n');
    const r = spawnSync('npm', ['pack', '--dry-run', '--silent'], { cwd: dir, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    writeFileSync(join(dir, 'build.mjs'), BUILD);
    expect(pack()).toMatch(/building/);
    expect(builds()).toBe(8);
  });
});
