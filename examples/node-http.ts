// node:http: requireAuth around each handler; route parameters come from your own router.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { NotFoundError, principalOf, requireAuth, sendError, sendJson, type Auth } from 'svc-auth';

type Routed = IncomingMessage & { params: Record<string, string> };

// A tiny router: '/api/repos/:org/:repo/head' -> { org, repo }, or undefined.
function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

export function createApp(auth: Auth): Server {
  const readHead = requireAuth(auth, {
    permission: 'repo:read',
    resource: (req: Routed) => `${req.params.org}/${req.params.repo}`,
  });
  const writeThing = requireAuth(auth, {
    permission: 'repo:write',
    resource: (req: Routed) => `${req.params.org}/${req.params.repo}`,
    thing: (req: Routed) => `${req.params.type}/${req.params.name}`,
  });
  const signedIn = requireAuth<Routed>(auth);

  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const routed = req as Routed;
    const on = (method: string, pattern: string): boolean => {
      const params = req.method === method ? match(pattern, path) : undefined;
      if (params !== undefined) routed.params = params;
      return params !== undefined;
    };
    try {
      if (on('GET', '/api/repos/:org/:repo/head')) {
        void readHead(routed, res, () => sendJson(res, 200, { ...routed.params, user: principalOf(req).userId }));
      } else if (on('PUT', '/api/repos/:org/:repo/things/:type/:name')) {
        void writeThing(routed, res, () => sendJson(res, 200, { written: `${routed.params.type}/${routed.params.name}` }));
      } else if (on('POST', '/api/tokens/:name')) {
        // An async handler: requireAuth awaits it and answers a rejection per H2.
        void signedIn(routed, res, async () => {
          const created = await auth.client(principalOf(req)).token.create({ name: routed.params.name ?? '' });
          sendJson(res, 201, { name: created.info.name });
        });
      } else if (on('DELETE', '/api/tokens/:name')) {
        void signedIn(routed, res, async () => {
          const info = await auth.client(principalOf(req)).token.revoke(routed.params.name ?? '');
          sendJson(res, 200, { revoked: info.name });
        });
      } else {
        sendError(res, new NotFoundError('no such endpoint'));
      }
    } catch (err) {
      sendError(res, err); // a bad %-escape in a route parameter
    }
  });
}
