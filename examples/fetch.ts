// fetch (Request -> Response): withAuth per handler, for Bun, Deno, workers or any fetch server.
import { NotFoundError, errorResponse, withAuth, type Auth } from 'svc-auth';

// Parameters from the request's own URL: a plain fetch handler sees the full path, nothing rewrites it.
function repoParams(req: Request): { org: string; repo: string } {
  const [, api, repos, org, repo, head] = new URL(req.url).pathname.split('/');
  if (api !== 'api' || repos !== 'repos' || head !== 'head' || !org || !repo) throw new NotFoundError('no such endpoint');
  return { org: decodeURIComponent(org), repo: decodeURIComponent(repo) };
}

export function createHandler(auth: Auth): (req: Request) => Promise<Response> {
  const head = withAuth(auth, async (req, principal) => Response.json({ ...repoParams(req), user: principal.userId }), {
    permission: 'repo:read',
    resource: (req) => {
      const p = repoParams(req);
      return `${p.org}/${p.repo}`;
    },
  });
  return async (req) => {
    try {
      return await head(req);
    } catch (err) {
      return errorResponse(err);
    }
  };
}
