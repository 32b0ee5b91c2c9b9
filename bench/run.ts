/**
 * Runs every benchmark in this folder in one process, one after another, and
 * writes bench/RESULTS.md with the machine and the date. Figures are measured,
 * never asserted: compare the ratios, not the absolute numbers, across machines.
 *
 *   npm run bench                    # all, writes RESULTS.md
 *   npm run bench -- policy glob     # some, printed only
 *   npm run bench -- --quick         # shorter runs and smaller counts, printed only
 *
 * Each benchmark reads `--quick` from the command line itself. Only a full run
 * of every benchmark writes RESULTS.md, keeping the section of the peer HTTP
 * benchmark (`npm run bench:http`, bench/peers/run.ts), which runs apart, and
 * the hand-written section on the request-path work of issue 23.
 */
import { cpus, totalmem, platform, arch } from 'node:os';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { PEER_HEADING, REQUEST_PATH_HEADING, sectionOf } from './report';

const here = dirname(fileURLToPath(import.meta.url));
const ORDER = ['policy', 'glob', 'tokens', 'auth', 'issuers', 'http', 'memory', 'postgres', 'http-postgres'];
const quick = process.argv.includes('--quick');
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .filter((n) => wanted.length === 0 || wanted.includes(n))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const header = [
  '# Benchmark results',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} with \`npm run bench${quick ? ' -- --quick' : ''}\` on ${cpu} (${cpus().length} cores),`,
  `${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${arch()}, Node ${process.version}.`,
  'Every engine is checked to give identical answers before it is timed. Ratios are against the',
  'hand-written floor or the named baseline of each table; lower is faster.',
  '',
];
const sections: string[] = [];
for (const name of files) {
  process.stderr.write(`bench: ${name} ...\n`);
  const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as { run?: () => Promise<string> };
  if (typeof mod.run !== 'function') throw new Error(`bench/${name}.bench.ts does not export run()`);
  sections.push((await mod.run()).trim());
}
const out = [...header, ...sections.map((s) => s + '\n')].join('\n');
if (wanted.length === 0 && !quick) {
  const results = join(here, 'RESULTS.md');
  const old = existsSync(results) ? readFileSync(results, 'utf8') : '';
  const kept = [PEER_HEADING, REQUEST_PATH_HEADING].map((h) => sectionOf(old, h)).filter((s) => s !== undefined);
  writeFileSync(results, [out, ...kept.map((s) => `${s.trim()}\n`)].join('\n'));
}
process.stdout.write(out);
