/** Fuzz: the CLI's argument parser and dispatcher (C5): exit 0/1/2, messages start with `svc: `, no raw errors. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags, runCli } from '../../src/app/cli';
import { expectNoPollution, hostileString, PARAMS, TIMEOUT, typedOrValue } from './harness';

const SPECS = { name: { type: 'string', short: 'n' }, scope: { type: 'string', multiple: true }, json: { type: 'boolean' } } as const;
const word = fc.oneof(
  hostileString,
  fc.constantFrom(
    'token',
    'auth',
    'member',
    'serve',
    'create',
    'list',
    'get',
    'revoke',
    'login',
    'status',
    'set',
    'remove',
    '--help',
    '-h',
    '--json',
    '-n',
    '--name',
    '--scope',
    '--scope=',
    '--user',
    '--resource',
    '--role',
    '--port',
    '--',
    '-',
  ),
);

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('fuzz: cli', () => {
  it(
    'parseFlags: arbitrary argv gives flags or a ValidationError',
    () => {
      fc.assert(
        fc.property(fc.array(word, { maxLength: 8 }), (args) => {
          const r = typedOrValue(() => parseFlags(args, SPECS));
          if (r instanceof Error) expect(r.code).toBe('validation');
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'runCli: arbitrary argv (no serve) exits 0, 1 or 2 and every error line starts with svc:',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-fuzz-'));
      dirs.push(dir);
      const env = { SVC_HOME: join(dir, 'home'), NO_COLOR: '1' };
      await fc.assert(
        fc.asyncProperty(
          fc.array(word, { maxLength: 6 }).filter((a) => a[0] !== 'serve'),
          async (argv) => {
            const err: string[] = [];
            const code = await runCli(argv, { env, isTTY: false, stdout: () => undefined, stderr: (t) => void err.push(t) });
            expect([0, 1, 2]).toContain(code);
            const text = err.join('');
            expect(text).not.toMatch(/unexpected error|TypeError|at .*\.ts:\d+/);
            if (code !== 0 && !text.startsWith('Usage') && !text.startsWith('svc: personal')) expect(text.startsWith('svc: ')).toBe(true);
            expectNoPollution();
          },
        ),
        { ...PARAMS, numRuns: Math.min(PARAMS.numRuns ?? 300, Number(process.env.FUZZ_CLI_RUNS ?? 20_000)) },
      );
    },
    TIMEOUT,
  );
});
