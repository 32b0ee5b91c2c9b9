/**
 * Issue 28: `svc serve` removes the records of sessions ended longer ago than
 * `--keep-sessions` (default 90 days) on its sweep timer, keeps PATs for audit,
 * keeps everything with `forever`, and refuses a bad retention as a usage error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevServer, openInstance } from '../../src/app/dev';
import { svc, tempHome } from './helpers';

const at = (iso: string) => ({ SVC_ALLOW_TEST_CLOCK: '1', SVC_NOW: iso });

describe('svc serve: the session purge', () => {
  let home: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    // Two sign-ins and a PAT on 2030-01-01: the sessions end 12 hours later.
    const dev = await openInstance({ SVC_HOME: home, ...at('2030-01-01T00:00:00Z') });
    await dev.auth.issueSession('alice');
    const me = await dev.auth.authenticate(await dev.auth.issueSession('alice'));
    await dev.auth.client(me).token.create({ name: 'ci', expiresIn: 30 });
    await dev.close();
  });

  afterAll(async () => {
    await cleanup();
  });

  async function serveAt(iso: string, purgeOlderThan: string | false): Promise<{ logs: string[]; kinds: string[] }> {
    const dev = await openInstance({ SVC_HOME: home, ...at(iso) });
    const logs: string[] = [];
    const server = await createDevServer({
      instance: dev,
      oauth: false,
      log: (l) => logs.push(l),
      expirySweep: { intervalMs: 60_000, within: ['7d'], purgeOlderThan },
    });
    await server.listen({ port: 0 });
    // The first sweep runs as the server starts listening; close() waits for it.
    for (let i = 0; i < 100 && !logs.some((l) => /removed|purge/.test(l)) && purgeOlderThan !== false; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await server.close();
    const kinds = (await dev.tokens.listByOwner('alice')).map((r) => r.kind).sort();
    await dev.close();
    return { logs, kinds };
  }

  it('keeps every record while the sessions ended less than the retention ago, and with forever', async () => {
    expect((await serveAt('2030-03-01T00:00:00Z', '90d')).kinds).toEqual(['pat', 'session', 'session']);
    const forever = await serveAt('2031-01-01T00:00:00Z', false);
    expect(forever.kinds).toEqual(['pat', 'session', 'session']);
    expect(forever.logs.join('\n')).not.toMatch(/removed/);
  });

  it('removes the ended sessions past the retention on its timer, says so in the log, and keeps the PAT for audit', async () => {
    const { logs, kinds } = await serveAt('2030-06-01T00:00:00Z', '90d');
    expect(logs).toContain('svc: removed 2 records of sessions ended more than 90d ago');
    expect(kinds).toEqual(['pat']);
  });

  it('a bad --keep-sessions is a usage error (exit 2) named by the flag, before anything is opened', async () => {
    for (const value of ['0d', '90', '3651d']) {
      const r = await svc(home, ['serve', '--port', '0', '--keep-sessions', value]);
      expect(r.code, value).toBe(2);
      expect(r.stderr).toContain('--keep-sessions');
    }
  });
});
