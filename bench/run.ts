/**
 * Runs every benchmark in this folder in one process, one after another, and
 * writes each one's block of bench/RESULTS.md (bench/results.ts): its tables,
 * each with the run's date, machine, load average and the command that
 * regenerates it above, and its figures, from which the goals table at the top
 * of the file is recomputed. Figures are measured, never asserted: compare the
 * ratios, not the absolute numbers, across machines.
 *
 *   npm run bench                           # all; writes RESULTS.md (drops the blocks of earlier, hand-kept runs)
 *   npm run bench -- policy glob            # some, printed only
 *   npm run bench -- memory --write         # some, and rewrite their blocks of RESULTS.md
 *   npm run bench -- --quick --out=/tmp/R.md   # shorter runs and smaller counts, written to another file
 *
 * Each benchmark reads `--quick` from the command line itself. A `--quick` or
 * partial run writes only with `--write` or `--out=FILE`. The peer HTTP
 * benchmark (`npm run bench:http`, bench/peers/run.ts) runs apart and writes
 * its own block the same way.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { runOf, stamp, takeFigures, writeResults } from './results';

const here = dirname(fileURLToPath(import.meta.url));
const ORDER = ['policy', 'glob', 'tokens', 'auth', 'issuers', 'http', 'memory', 'postgres', 'http-postgres', 'features'];
const quick = process.argv.includes('--quick');
const outArg = process.argv.find((a) => a.startsWith('--out='));
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .filter((n) => wanted.length === 0 || wanted.includes(n))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
for (const w of wanted) if (!files.includes(w)) throw new Error(`no benchmark bench/${w}.bench.ts`);

const NEEDS_DATABASE = new Set(['postgres', 'http-postgres', 'features']);
const commandOf = (name: string): string =>
  `${NEEDS_DATABASE.has(name) ? 'DATABASE_URL=… ' : ''}npm run bench -- ${name}${quick ? ' --quick' : ''} --write`;

const blocks: { name: string; md: string; figures: Record<string, number> }[] = [];
for (const name of files) {
  process.stderr.write(`bench: ${name} ...\n`);
  const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as { run?: () => Promise<string> };
  if (typeof mod.run !== 'function') throw new Error(`bench/${name}.bench.ts does not export run()`);
  const run = runOf(commandOf(name));
  takeFigures();
  const md = stamp((await mod.run()).trim(), run);
  blocks.push({ name, md, figures: takeFigures() });
  process.stdout.write(`${md}\n\n`);
}
const full = wanted.length === 0 && !quick;
if (full || outArg !== undefined || process.argv.includes('--write')) {
  const file = outArg === undefined ? join(here, 'RESULTS.md') : resolve(outArg.slice('--out='.length));
  writeResults(file, blocks, full ? ['earlier'] : []);
  process.stderr.write(`bench: wrote ${blocks.map((b) => b.name).join(', ')} into ${file}\n`);
}
