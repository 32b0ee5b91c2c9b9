/**
 * Every TypeScript block of docs/audit.md type-checks against the package's
 * public exports (`svc-auth` mapped to src/index.ts), and runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const blocks = [...readFileSync(join(ROOT, 'docs/audit.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
// Inside the repository so that node_modules resolves; removed afterwards.
const dir = mkdtempSync(join(ROOT, 'test/contract/docs/.audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/audit.md', { timeout: 120_000 }, () => {
  it('has TypeScript examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it('every ts block type-checks against the public exports', () => {
    blocks.forEach((b, i) => writeFileSync(join(dir, `block${i}.ts`), `${b}\nexport {};\n`));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        // The project's own settings, so that src/ checks as it does in `npm run typecheck`.
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: { noEmit: true, paths: { 'svc-auth': [join(ROOT, 'src/index.ts')] } },
        include: ['*.ts'],
      }),
    );
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the runnable blocks run (tsx, svc-auth from source)', () => {
    for (const i of [0, 1, 2]) {
      const file = join(dir, `run${i}.ts`);
      writeFileSync(file, (blocks[i] as string).replaceAll("from 'svc-auth'", `from '${join(ROOT, 'src/index.ts')}'`) + '\nexport {};\n');
      const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
  });
});
