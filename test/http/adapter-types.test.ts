/**
 * The adapters' types as docs/frameworks.md presents them (issue 18, item 11). Without `optional`,
 * `req.principal` / `request.principal` / `c.var.principal` is a Principal and Fastify's
 * `requirePermission` infers the route's Params: test/<adapter>/types.fixture.ts, compiled (never run)
 * by `npm run typecheck`. Here, with tsc in a program of its own, the `optional: true` switch: a
 * module augmentation holds for a whole program, so it cannot sit beside those fixtures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
// Inside the repository so that node_modules resolves; removed afterwards.
const dir = mkdtempSync(join(ROOT, 'test/http/.types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compile `files` (absolute paths) with the project's own settings; tsc's output, one line per error. */
function tsc(name: string, files: string[]): string[] {
  const config = join(dir, `${name}.tsconfig.json`);
  writeFileSync(config, JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), compilerOptions: { noEmit: true }, files, include: [] }));
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config, '--pretty', 'false'], {
    encoding: 'utf8',
  });
  return `${r.stdout}${r.stderr}`.split('\n').filter(Boolean);
}

const OPTIONAL_EXPRESS = `
import express from 'express';
import { expectTypeOf } from 'vitest';
import type { Auth, Principal } from 'svc-auth';
import { svcAuth, type RequestPrincipal } from 'svc-auth/express';
declare module 'svc-auth/express' {
  interface SvcAuthTypes {
    optional: true;
  }
}
declare const auth: Auth;
const app = express();
app.use(svcAuth(auth, { optional: true }));
app.get('/', (req, res) => {
  expectTypeOf(req.principal).toEqualTypeOf<Principal | null>();
  // @ts-expect-error null without a credential
  res.json({ user: req.principal.userId });
});
expectTypeOf<RequestPrincipal>().toEqualTypeOf<Principal | null>();
export { app };
`;

const OPTIONAL_FASTIFY = `
import Fastify from 'fastify';
import { expectTypeOf } from 'vitest';
import type { Auth, Principal } from 'svc-auth';
import { svcAuth, type RequestPrincipal } from 'svc-auth/fastify';
declare module 'svc-auth/fastify' {
  interface SvcAuthTypes {
    optional: true;
  }
}
declare const auth: Auth;
export async function build(): Promise<void> {
  const app = Fastify();
  await app.register(svcAuth, { auth, optional: true });
  app.get('/', async (req) => {
    expectTypeOf(req.principal).toEqualTypeOf<Principal | null>();
    // @ts-expect-error null without a credential
    return { user: req.principal.userId };
  });
}
expectTypeOf<RequestPrincipal>().toEqualTypeOf<Principal | null>();
`;

describe('adapter types with the optional switch (tsc)', { timeout: 180_000 }, () => {
  let errors: string[] | undefined;
  const errorsOf = (adapter: string) => {
    if (errors === undefined) {
      writeFileSync(join(dir, 'express-optional.ts'), OPTIONAL_EXPRESS);
      writeFileSync(join(dir, 'fastify-optional.ts'), OPTIONAL_FASTIFY);
      errors = tsc('switched', [join(dir, 'express-optional.ts'), join(dir, 'fastify-optional.ts')]);
    }
    // An error in no file (a bad config) counts against every adapter.
    return errors.filter((l) => l.includes(`${adapter}-optional.ts`) || !/\(\d+,\d+\)/.test(l));
  };

  it('express: with SvcAuthTypes { optional: true }, req.principal is Principal | null (and Principal without it: test/express/types.fixture.ts)', () => {
    expect(errorsOf('express')).toEqual([]);
  });

  it('fastify: with SvcAuthTypes { optional: true }, request.principal is Principal | null (and Principal without it: test/fastify/types.fixture.ts)', () => {
    expect(errorsOf('fastify')).toEqual([]);
  });
});
