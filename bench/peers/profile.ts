/**
 * A summary of the CPU profiles of `npm run bench:http -- --profile`:
 * per profiled server, where its busy time went (self time per function), and
 * svc-auth's own functions (from src/ or dist/) with self and total time. Not a
 * benchmark itself; see bench/peers/run.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A `.cpuprofile` node (the fields read here). */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A `.cpuprofile` (the fields read here), as `--cpu-prof` or the inspector's `Profiler.stop` gives it. */
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** svc-auth's own code: its src/ or dist/, not a dependency's. */
const ours = (url: string): boolean => /\/(src|dist)\/[^/]/.test(url) && !url.includes('/node_modules/');
const IDLE = new Set(['(idle)', '(program)']);

/** A function as the summaries name it: name, file (relative to `root`) and line where known. */
export function label(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  // Code that tsx compiled reports line 0 (one line); say a line only where the profile knows it.
  const line = lineNumber > 0 ? `:${lineNumber + 1}` : '';
  const where = url === '' ? '' : ` ${url.replace(/^file:\/\//, '').replace(root, '')}${line}`;
  return `${functionName === '' ? '(anonymous)' : functionName}${where}`;
}

/** Self time (µs of samples) per node of `profile`, idle and program nodes included. */
export function selfByNode(profile: Profile): Map<number, number> {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  return self;
}

function summariseOne(file: string, root: string, top: number): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = selfByNode(profile);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let busy = 0;
  const selfBy = new Map<string, number>();
  const mine = new Set<string>();
  const totalBy = new Map<string, number>();
  for (const [id, t] of self) {
    const node = byId.get(id) as ProfileNode;
    if (IDLE.has(node.callFrame.functionName)) continue;
    busy += t;
    const name = label(node, root);
    selfBy.set(name, (selfBy.get(name) ?? 0) + t);
    if (ours(node.callFrame.url)) mine.add(name);
    // Total time: once per function on the sample's stack, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at) as ProfileNode;
      if (!ours(n.callFrame.url)) continue;
      const fn = label(n, root);
      if (seen.has(fn)) continue;
      seen.add(fn);
      totalBy.set(fn, (totalBy.get(fn) ?? 0) + t);
    }
  }
  const pct = (t: number): string => `${((100 * t) / busy).toFixed(1)}%`;
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]);
  const own = sorted(selfBy).filter(([name]) => mine.has(name));
  return [
    `#### ${file.split('/').pop() ?? file} (busy ${(busy / 1e6).toFixed(2)} s of samples)`,
    '',
    `Top ${top} functions by self time, share of busy time:`,
    '',
    ...sorted(selfBy)
      .slice(0, top)
      .map(([name, t]) => `- ${pct(t)} ${name}`),
    '',
    `svc-auth's own functions by self time (total time, with what they call, in brackets):`,
    '',
    ...(own.length === 0
      ? ['- none sampled']
      : own.slice(0, top).map(([name, t]) => `- ${pct(t)} (${pct(totalBy.get(name) ?? t)}) ${name}`)),
    '',
    `svc-auth's own functions by total time:`,
    '',
    ...sorted(totalBy)
      .slice(0, top)
      .map(([name, t]) => `- ${pct(t)} (self ${pct(selfBy.get(name) ?? 0)}) ${name}`),
    '',
  ];
}

/** Markdown: a summary of every `.cpuprofile` in `dir`. */
export function summarise(dir: string, top = 15): string {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  return [
    `### CPU profiles (\`--profile\`; the files are in ${dir})`,
    '',
    ...files.flatMap((f) => summariseOne(join(dir, f), `${root}/`, top)),
  ].join('\n');
}
