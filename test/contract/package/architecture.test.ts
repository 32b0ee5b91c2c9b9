/**
 * scripts/check-architecture.mjs (part of `npm run lint`) keeps docs/architecture.md's folder list equal
 * to src/'s folders, and the layer tables of docs/architecture.md and docs/concepts.md equal to the
 * layers of .dependency-cruiser.cjs. Run on the project itself, and on a copy whose src/ has one
 * folder more and one less than the page lists, whose concepts table moved a folder.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const SCRIPT = join(ROOT, 'scripts/check-architecture.mjs');
const copy = mkdtempSync(join(tmpdir(), 'svc-auth-architecture-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
const listed = (): string[] =>
  [...readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8').matchAll(/^\|\s*`(src\/[^`]+\/)`/gm)].map((m) => m[1] as string);

describe('scripts/check-architecture.mjs', () => {
  it('passes on the project: the page lists every folder of src/, the tables match the layer rules', () => {
    const r = run();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/lists the \d+ folders of src\//);
  });

  it('fails naming the folder the page misses and the one src/ no longer has, and a layer that differs', () => {
    mkdirSync(join(copy, 'docs'));
    copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(copy, '.dependency-cruiser.cjs'));
    copyFileSync(join(ROOT, 'docs/architecture.md'), join(copy, 'docs/architecture.md'));
    const concepts = readFileSync(join(ROOT, 'docs/concepts.md'), 'utf8');
    writeFileSync(join(copy, 'docs/concepts.md'), concepts.replace(/^\| 4 \| `tokens` \|/m, '| 5 | `tokens` |'));
    const folders = listed();
    expect(folders).toContain('src/stores/memory/');
    for (const f of folders.filter((f) => f !== 'src/stores/memory/')) mkdirSync(join(copy, f), { recursive: true });
    mkdirSync(join(copy, 'src/stores/redis'));

    const r = run('--root', copy);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/does not list these folders of src\/ \(add a row to "## Folders"\): src\/stores\/redis\//);
    expect(r.stderr).toMatch(/lists folders that src\/ does not have \(remove or rename the rows\): src\/stores\/memory\//);
    expect(r.stderr).toMatch(/docs\/concepts\.md: layer 4 lists nothing, \.dependency-cruiser\.cjs has tokens/);
    expect(r.stderr).not.toMatch(/docs\/architecture\.md: layer/);
  });
});
