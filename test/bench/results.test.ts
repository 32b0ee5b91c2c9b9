/**
 * bench/RESULTS.md is written by the benchmark programs (bench/results.ts): each
 * program rewrites its own block, every table gets the line of its run above
 * it, and the goals table is recomputed from the figures of every block in the
 * file, so no table is kept by hand.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runOf, stamp, writeResults } from '../../bench/results';

const OLD = [
  '# Benchmark results',
  '',
  'Measured 2026-11-23 with `npm run bench`.',
  '',
  '## Memory: a million tokens, and cache floods (goal 6, issue 13)',
  '',
  '| what | heap |',
  '|---|---:|',
  '| records | 324.6 MB |',
  '',
  "## Peer HTTP: svc-auth beside each framework's own auth (issue 23)",
  '',
  'hand-kept peer figures',
  '',
].join('\n');

const goalRow = (md: string, start: string): string => md.split('\n').find((l) => l.startsWith(`| ${start}`)) ?? '';

describe('RESULTS.md written by the programs', () => {
  it('puts the run line above every table, and only there', () => {
    const md = stamp('## T\n\ntext\n\n| a |\n|---|\n| 1 |\n\nmore\n\n| b |\n|---|', runOf('npm run bench -- t --write'));
    const lines = md.split('\n');
    const runLines = lines.flatMap((l, i) => (l.startsWith('_Measured ') ? [i] : []));
    expect(runLines).toHaveLength(2);
    for (const i of runLines) {
      expect(lines[i]).toContain('load average');
      expect(lines[i]).toContain('Regenerate: `npm run bench -- t --write`');
      expect(lines[i + 2]?.startsWith('|')).toBe(true);
    }
  });

  it('replaces a block, keeps the others, recomputes the goals from every block, and drops the earlier results', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-auth-results-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'RESULTS.md');
    writeFileSync(file, OLD);
    const memory = stamp(
      '## Memory: a million tokens, and cache floods\n\n| what | heap |\n|---|---:|\n| records | 225.5 MB |',
      runOf('npm run bench -- memory --write'),
    );
    writeResults(file, [{ name: 'memory', md: memory, figures: { 'memory.records': 1_000_000, 'memory.mbPerMillion': 225.5 } }]);
    let md = readFileSync(file, 'utf8');
    // The old memory section gave way to the block; the old peer section is kept until its block comes.
    expect(md).not.toContain('324.6 MB');
    expect(md).toContain('hand-kept peer figures');
    expect(goalRow(md, '4.')).toContain('225.5 MB');
    expect(goalRow(md, '4.')).toMatch(/\| met \| .*npm run bench -- memory --write/);
    expect(goalRow(md, '1. guarded node:http')).toContain('not measured');

    const peers = stamp(
      "## Peer HTTP: svc-auth beside each framework's own auth (issue 23)\n\n| a |\n|---|",
      runOf('npm run bench:http -- --quick'),
    );
    writeResults(file, [{ name: 'peers', md: peers, figures: { 'peers.cpu.node.svc-memory': 60, 'peers.cpu.node.bare': 40 } }]);
    md = readFileSync(file, 'utf8');
    expect(md).not.toContain('hand-kept peer figures');
    expect(goalRow(md, '1. guarded node:http')).toContain('1.50x');
    expect(goalRow(md, '1. guarded node:http')).toContain('**missed** (`--quick` run)');
    // The memory block and its figures survive another program's write.
    expect(goalRow(md, '4.')).toContain('225.5 MB');

    writeResults(file, [], ['earlier']);
    md = readFileSync(file, 'utf8');
    expect(md).not.toContain('results:begin earlier');
    expect(md.indexOf('results:begin goals')).toBeLessThan(md.indexOf('results:begin memory'));
    expect(md.indexOf('results:begin memory')).toBeLessThan(md.indexOf('results:begin peers'));
  });
});
