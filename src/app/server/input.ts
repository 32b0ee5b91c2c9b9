/**
 * Request input of the reference server: path segments, the JSON body
 * (size-capped) and the write body's fields. Kept apart from the routes.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError, sendJson } from 'svc-auth';

/** Largest request body accepted (1 MiB); larger ones get 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Path segments, percent-decoded; `undefined` when a segment does not decode or hides a `/`.
 *
 * @example
 * ```ts
 * segments('/api/repos/acme/web/head'); // ['api', 'repos', 'acme', 'web', 'head']
 * segments('/api/a%2Fb');               // undefined
 * ```
 */
export function segments(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const out: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (s.includes('/')) return undefined;
    out.push(s);
  }
  return out;
}

/**
 * The JSON body, or `undefined` after answering 413 for a body over {@link MAX_BODY_BYTES}.
 *
 * @throws ValidationError when the body is not JSON.
 * @example
 * ```ts
 * const body = await readJson(req, res);
 * if (body === undefined) return; // already answered 413
 * ```
 */
export async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const tooLarge = (): undefined => {
    sendJson(res, 413, { error: 'too_large', message: `the body is larger than ${MAX_BODY_BYTES} bytes` }, { connection: 'close' });
    return undefined;
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new ValidationError([{ path: 'body', message: 'expected a JSON object {"content", "committer"?}' }]);
  }
}

/**
 * The fields of a thing write, `{ content, committer? }`.
 *
 * @throws ValidationError for anything else (unknown fields, no content, a non-string committer).
 * @example
 * ```ts
 * const { content, committer } = writeInput({ content: { text: 'hi' } });
 * ```
 */
export function writeInput(body: unknown): { content: unknown; committer?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ path: 'body', message: 'expected a JSON object {"content", "committer"?}' }]);
  }
  const rec = body as Record<string, unknown>;
  const issues = Object.keys(rec)
    .filter((k) => k !== 'content' && k !== 'committer')
    .map((k) => ({ path: `body.${k.slice(0, 64)}`, message: 'unknown field' }));
  if (!Object.hasOwn(rec, 'content')) issues.push({ path: 'body.content', message: 'is required' });
  if (rec.committer !== undefined && typeof rec.committer !== 'string')
    issues.push({ path: 'body.committer', message: 'expected an identity wref string' });
  if (tooDeep(rec.content, MAX_CONTENT_DEPTH))
    issues.push({ path: 'body.content', message: `nested deeper than ${MAX_CONTENT_DEPTH} levels` });
  if (issues.length > 0) throw new ValidationError(issues);
  return typeof rec.committer === 'string' ? { content: rec.content, committer: rec.committer } : { content: rec.content };
}

/** Deepest JSON nesting a thing's content may have: deeper would overflow the stack when stored (a 500). */
const MAX_CONTENT_DEPTH = 64;

function tooDeep(value: unknown, limit: number): boolean {
  // Iterative, so that measuring a hostile value cannot itself overflow the stack.
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
