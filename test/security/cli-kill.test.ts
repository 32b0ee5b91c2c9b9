/**
 * Crashes of the CLI (C3): several `svc token create` processes on one SVC_HOME,
 * killed with SIGKILL at random moments. Afterwards the state always loads,
 * every token whose value was printed exists and authenticates, and no record
 * is half written. CI runs SVC_KILL_LOOPS=20 rounds (the default); the long
 * form is `SVC_KILL_LOOPS=200` (part of `npm run fuzz`).
 */
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openInstance } from '../../src/app/dev';
import { FileTokenStore } from '../../src/stores';
import { baseEnv, exited, start, svc, tempHome } from '../cli/helpers';

const LOOPS = Number(process.env.SVC_KILL_LOOPS ?? '') > 0 ? Number(process.env.SVC_KILL_LOOPS) : 20;
const PER_ROUND = 3;
const posix = process.platform !== 'win32';

describe.skipIf(!posix)('CLI crashes: SIGKILL at random moments', () => {
  it(
    `${LOOPS} rounds of ${PER_ROUND} concurrent token creates, some killed: nothing printed is lost, the state always loads`,
    async () => {
      const { home, cleanup } = await tempHome();
      try {
        expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'owner'])).code).toBe(0);
        expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
        const printed = new Map<string, string>();
        let killed = 0;
        let finished = 0;
        for (let round = 0; round < LOOPS; round++) {
          await Promise.all(
            Array.from({ length: PER_ROUND }, async (_, j) => {
              const name = `r${round}-${j}`;
              const child = start(['token', 'create', '-n', name, '--scope', 'acme/web=repo:read'], baseEnv(home));
              let out = '';
              child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
              // Node with tsx starts in roughly 1-2 s here; kill anywhere from start-up to after the write.
              const timer = setTimeout(() => child.kill('SIGKILL'), 300 + Math.random() * 2400);
              const end = await exited(child);
              clearTimeout(timer);
              if (end.signal === 'SIGKILL') killed++;
              else finished++;
              const token = out.trim();
              // A value printed whole is a promise that the token exists, killed or not.
              if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) printed.set(name, token);
            }),
          );
          // The state loads after every round: no half-written record, no corrupt file.
          await new FileTokenStore(home).listByOwner('alice');
        }
        const dev = await openInstance({ SVC_HOME: home });
        try {
          for (const [name, token] of printed) {
            const p = await dev.auth.authenticate(token);
            expect(p.tokenName).toBe(name);
          }
          const names = new Set((await dev.tokens.listByOwner('alice')).map((r) => r.name));
          for (const name of printed.keys()) expect(names.has(name)).toBe(true);
        } finally {
          await dev.close();
        }
        // A later change still goes through (no lock left behind blocks it) and sweeps leftovers.
        const after = await svc(home, ['token', 'create', '-n', 'after']);
        expect(after.code).toBe(0);
        expect((await readdir(home)).filter((n) => n.endsWith('.lock') || n.endsWith('.pending'))).toEqual([]);
        console.info(
          `[cli-kill] ${LOOPS} rounds: ${killed} processes killed, ${finished} finished, ${printed.size} tokens printed, all present`,
        );
        expect(killed).toBeGreaterThan(0);
      } finally {
        await cleanup();
      }
    },
    Math.max(120_000, LOOPS * 15_000),
  );
});
