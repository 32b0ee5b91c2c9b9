/** Defect 4: token values reached output (usage errors, the dev server's request log). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDevServer, openInstance } from '../../src/app/dev';
import { runCli } from '../../src/app/cli';
import { aToken, leaks } from '../support/token';

/** What a token becomes in output: the text users see in logs and events. */
const REDACTED = '[redacted]';

describe('token values never reach output', () => {
  it('svc <token> prints no token in the usage error', async () => {
    const token = await aToken();
    const err: string[] = [];
    const io = { env: {}, isTTY: false, stdout: () => undefined, stderr: (t: string) => void err.push(t) };
    expect(await runCli([token], io)).toBe(2);
    expect(await runCli(['token', token], io)).toBe(2);
    expect(await runCli(['token', 'list', token], io)).toBe(2);
    expect(await runCli(['token', 'list', `--${token}`], io)).toBe(2);
    const text = err.join('');
    expect(text).toContain(REDACTED);
    expect(leaks(text, token)).toBe(false);
  });

  it('dev server request log: a token in the path, escaped or slash-joined, is redacted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-redact-'));
    const dev = await openInstance({ SVC_HOME: join(dir, 'home') });
    const logs: string[] = [];
    const server = await createDevServer({ instance: dev, log: (l) => logs.push(l) });
    try {
      const url = await server.listen({ port: 0 });
      const token = await aToken();
      for (const spelled of [token, token.replaceAll('.', '%2E'), token.replaceAll('.', '/'), token.replaceAll('.', '%252E')]) {
        await (await fetch(`${url}/api/${spelled}`)).arrayBuffer();
      }
      for (let i = 0; i < 50 && logs.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
      expect(logs).toHaveLength(4);
      for (const line of logs) {
        expect(line).toContain(REDACTED);
        expect(leaks(line, token)).toBe(false);
      }
    } finally {
      await server.close();
      await dev.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
