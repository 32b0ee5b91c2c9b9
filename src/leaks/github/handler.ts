/**
 * The endpoint GitHub calls when its secret scanning finds a token matching
 * the pattern you registered with its partner program (`TOKEN_PATTERN`): the
 * request is verified the way GitHub documents it, every match that is an
 * active token of this instance is revoked through `auth.reportLeaked`, and
 * the answer gives GitHub its false-positive feedback.
 *
 * The order of the checks is the order of their cost: method, the signature
 * headers' shape, the body's size (read under the cap), the key (cached),
 * the signature over the raw bytes, and only then JSON and tokens. Nothing
 * unsigned, wrongly signed, signed for another body or oversized reaches the
 * token store or the JSON parser.
 *
 * GitHub's scheme carries no timestamp or nonce, so a captured request can be
 * sent again: it revokes nothing new (its tokens are revoked already) and
 * gets the same labels back.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SvcAuthError } from '../../errors';
import type { Auth, LeakOutcome } from '../../service';
import { internal, invalid, json, postOnly, tooLarge, unavailable, unsigned } from '../answer';
import { endpointOf, guardOnError, type Answer, type Outcome } from '../../http';
import { nodeHeader, parseJson, readFetchBody, readNodeBody, type RawBody } from '../body';
import { checkAuth } from '../options';
import { KeySource } from './keys';
import { feedbackOf, parseMatches, type Match } from './matches';
import { checkGitHubOptions, type GitHubSecretScanningOptions } from './options';
import { readSignatureHeaders, verifies } from './signature';

/**
 * The GitHub endpoint in both forms.
 *
 * @example
 * ```ts
 * const github: GitHubSecretScanningHandler = githubSecretScanningHandler(auth, { tokenTypes: ['acme_svc_pat'] });
 * // node:http: if (req.url === '/hooks/github/secret-scanning') void github.node(req, res);
 * // Hono: app.post('/hooks/github/secret-scanning', (c) => github.fetch(c.req.raw));
 * ```
 */
export interface GitHubSecretScanningHandler {
  /**
   * Answer one request; an Express or connect handler as it is (`app.post(path, github.node)`).
   * A body parser that read the body first must leave the exact bytes on `req.body`
   * (`express.raw({ type: 'application/json' })`): a parsed JSON body cannot be verified. The
   * third argument (Express's `next`) is never read. Never rejects.
   */
  node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void>;
  /** Answer one request. Never rejects. */
  fetch(req: Request): Promise<Response>;
}

/** The body a body parser read, as `node` is given it: the raw bytes, or a misconfiguration (a 500 that `onError` hears). */
/** The body: a framework's only as bytes (the signature covers the exact bytes; a parsed body cannot be checked). */
async function bodyOf(req: IncomingMessage, max: number): Promise<RawBody> {
  const read = await readNodeBody(req, max);
  if (!('framework' in read)) return read;
  if (!(read.framework instanceof Uint8Array)) {
    throw new Error('svc-auth: githubSecretScanningHandler needs the raw body bytes on req.body (express.raw), not a parsed body');
  }
  return read.framework.byteLength > max ? { tooLarge: true } : { tooLarge: false, bytes: read.framework };
}

/** Strings per `reportLeaked` call, its own limit. */
const CHUNK = 1_000;

interface Incoming {
  method: string | undefined;
  header(name: string): string | undefined;
  body(max: number): Promise<RawBody>;
}

/**
 * The GitHub secret scanning partner endpoint, for node:http and fetch runtimes. A request must
 * carry `Github-Public-Key-Identifier` and `Github-Public-Key-Signature` (ECDSA P-256, SHA-256,
 * over the raw body), signed by a key GitHub lists (`options.keys`, or the keys URL); its body is
 * GitHub's array of matches `[{ "token", "type", "url", "source" }]`. Each token of a type in
 * `options.tokenTypes` (the types you registered; others are not judged) that is an active
 * token of this instance is revoked with its subtree (`token.leaked` events, `source` `'github'`,
 * `url` where it was found). The answer is 200 with one feedback entry per match:
 * `{ "token_hash" (or "token_raw"), "token_type", "label": "true_positive" | "false_positive" }`,
 * true for every token of this instance (active, revoked or expired), false for the rest (a
 * match of a type not registered included).
 *
 * Refusals, in the H2 JSON shape: 405 (not POST), 403 (unsigned, a signature that is not base64, a
 * key GitHub does not list, a signature that does not match the body), 413 (over
 * `maxBodyBytes`), 400 (a signed body that is not the documented JSON), 503 (the keys or the
 * token store could not be reached, or a key identifier the cached keys do not list arrived
 * within the refetch cooldown: GitHub sends it again). Neither form throws or rejects.
 *
 * @throws ValidationError when `auth` or an option is not usable (checked here, once).
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { githubSecretScanningHandler } from 'svc-auth/leaks';
 * const github = githubSecretScanningHandler(auth, { tokenTypes: ['acme_svc_pat'], githubToken: process.env.GITHUB_TOKEN });
 * createServer((req, res) => {
 *   if ((req.url ?? '').split('?')[0] === '/hooks/github/secret-scanning') void github.node(req, res);
 *   else res.writeHead(404).end();
 * }).listen(8080, '127.0.0.1');
 * ```
 */
export function githubSecretScanningHandler(auth: Auth, options: GitHubSecretScanningOptions): GitHubSecretScanningHandler {
  const reportLeaked = checkAuth(auth, 'auth');
  const o = checkGitHubOptions(options);
  const keys = new KeySource(o.keys);
  const report = guardOnError(o.onError);

  /**
   * Revoke what is ours, one `reportLeaked` call per url (the event's `url`) and per 1 000 tokens.
   * Only matches of a registered type are judged: the others stay `foreign` (false_positive).
   */
  async function judge(matches: readonly Match[]): Promise<LeakOutcome[]> {
    const outcomes: LeakOutcome[] = new Array<LeakOutcome>(matches.length).fill('foreign');
    const byUrl = new Map<string, number[]>();
    matches.forEach((m, i) => {
      // A type nobody registered here is not ours to judge, whatever the token looks like.
      if (!o.tokenTypes.has(m.type)) return;
      const at = byUrl.get(m.url ?? '');
      if (at === undefined) byUrl.set(m.url ?? '', [i]);
      else at.push(i);
    });
    for (const [url, indexes] of byUrl) {
      for (let i = 0; i < indexes.length; i += CHUNK) {
        const chunk = indexes.slice(i, i + CHUNK);
        const got = await reportLeaked(
          chunk.map((j) => (matches[j] as Match).token),
          url === '' ? { source: o.source } : { source: o.source, url },
        );
        chunk.forEach((j, k) => (outcomes[j] = got.outcomes[k] ?? 'foreign'));
      }
    }
    return outcomes;
  }

  async function answer(req: Incoming): Promise<Outcome> {
    if (req.method !== 'POST') return { answer: postOnly(), unread: true };
    const signed = readSignatureHeaders(req.header('github-public-key-identifier'), req.header('github-public-key-signature'));
    if ('problem' in signed) return { answer: unsigned(signed.problem), unread: true };
    const body = await req.body(o.maxBodyBytes);
    if (body.tooLarge) return { answer: tooLarge(o.maxBodyBytes), unread: true };
    const key = await keys.find(signed.keyId);
    if (key === undefined) return { answer: unsigned('signed with a key GitHub does not list'), unread: false };
    if (key === 'later') {
      return {
        answer: unavailable('signed with a key not among the keys at hand: send it again once they are fetched', keys.retryAfterSec()),
        unread: false,
      };
    }
    if (!verifies(body.bytes, key, signed.signature)) return { answer: unsigned('the signature does not match the body'), unread: false };
    const parsed = parseJson(body.bytes);
    if (parsed === undefined) return { answer: invalid([{ path: 'body', message: 'is not UTF-8 JSON' }]), unread: false };
    const checked = parseMatches(parsed.value);
    if ('issues' in checked) return { answer: invalid(checked.issues), unread: false };
    const outcomes = await judge(checked.matches);
    return { answer: json(200, feedbackOf(checked.matches, outcomes, o.feedback)), unread: false };
  }

  function failed(err: unknown): Answer {
    report(err);
    if (err instanceof SvcAuthError && err.code === 'unavailable') return unavailable(String(err.message));
    return internal();
  }

  return endpointOf(
    {
      // A body a framework read (express.raw) is on req.body; the third argument is Express's `next`, never a body.
      node: (req) => answer({ method: req.method, header: (name) => nodeHeader(req, name), body: (max) => bodyOf(req, max) }),
      fetch: (req) =>
        answer({ method: req.method, header: (name) => req.headers.get(name) ?? undefined, body: (max) => readFetchBody(req, max) }),
    },
    failed,
  );
}
