/**
 * The two servers of bench/http.bench.ts, run in a child process so that the
 * load generator does not share their thread. Not a benchmark itself (run.ts
 * only loads `*.bench.ts`). Both answer `GET /api/repos/<org>/<repo>/head`
 * with the same JSON; one of them behind `requireAuth` with `repo:read`.
 * Sends `{ plain, guarded, token }` (ports and a hot PAT) to the parent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuth, generateKeyRing, requireAuth } from '../src/index';

const HEAD = /^\/api\/repos\/([^/]+)\/([^/]+)\/head$/;
const ROLES = { orgs: { acme: 'editor' as const } };

function repoOf(req: IncomingMessage): string | undefined {
  const m = HEAD.exec(req.url ?? '');
  return m === null ? undefined : `${m[1]}/${m[2]}`;
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const m = HEAD.exec(req.url ?? '');
  if (req.method !== 'GET' || m === null) {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.stringify({ org: m[1], repo: m[2], head: '8f3c2a1' });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

const auth = createAuth({ issuer: 'https://svc.bench', keys: await generateKeyRing(), members: { rolesOf: () => ROLES } });
const me = await auth.authenticate(await auth.issueSession('alice'));
const { token } = await auth.client(me).token.create({ name: 'bench', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
const guard = requireAuth(auth, { permission: 'repo:read', resource: (req) => repoOf(req) ?? '' });

const plain = createServer(answer);
const guarded = createServer((req, res) => {
  void guard(req, res, () => answer(req, res));
});
const listen = (s: ReturnType<typeof createServer>): Promise<number> =>
  new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
const ports = { plain: await listen(plain), guarded: await listen(guarded), token };
process.send?.(ports);
process.on('disconnect', () => process.exit(0));
