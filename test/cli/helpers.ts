/**
 * Spawning the real `svc` from source (`node --import tsx src/app/cli/main.ts`)
 * in a temporary SVC_HOME, so these tests need no build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const MAIN = join(ROOT, 'src/app/cli/main.ts');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: nothing of the developer's own svc setup leaks in. */
export function baseEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_HOME: home, NO_COLOR: '1' };
  for (const k of ['SVC_TOKEN', 'SVC_DATABASE_URL', 'SVC_NOW', 'SVC_ALLOW_TEST_CLOCK']) delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function start(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function svc(home: string, args: readonly string[], extra: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = start(args, baseEnv(home, extra));
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

export async function tempHome(): Promise<{ home: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  return { home: join(dir, 'home'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Start `svc serve --port 0` (and `args`) and wait for its base URL line and its `listening on <url>` line. */
export function serve(
  home: string,
  extra: Record<string, string | undefined> = {},
  args: readonly string[] = [],
): Promise<{ url: string; child: ChildProcess; stderr: () => string; firstLine: string }> {
  return new Promise((done, fail) => {
    const child = start(['serve', '--port', '0', ...args], baseEnv(home, extra));
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+)\nlistening on \1\n/.exec(out);
      if (m?.[1]) done({ url: m[1], child, stderr: () => err, firstLine: out.split('\n')[0] ?? '' });
    });
    child.on('error', fail);
    child.on('close', (code) => fail(new Error(`svc serve exited ${code}: ${err}`)));
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => done({ code, signal }));
  });
}
