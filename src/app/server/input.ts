/**
 * Request input of the reference server: path segments, the JSON body and the
 * write body's fields. Kept apart from the routes.
 *
 * The body is read by the one bounded body reader of svc-auth's own endpoints
 * (`/mcp`, the leak endpoints), and its 413 written by their one writer: the
 * HTTP layer's edge kit, which no package entry exports. This file is the one
 * part of the reference server that imports it (lint allows this file and no
 * other), so that the server holds no second copy with its own rules.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError } from 'svc-auth';
import { closing, JSON_HEADERS, readNodeBody, writeAnswer } from '../../http';

/**
 * How large a request body may be and how long it may take to arrive.
 *
 * @example
 * ```ts
 * const limits: BodyLimits = { maxBytes: 64 * 1024, deadlineMs: 5_000 };
 * ```
 */
export interface BodyLimits {
  /** Largest body accepted; larger ones get 413 and the connection is closed. Default 1 MiB. */
  maxBytes: number;
  /** From the first read; a body still arriving then is cut off (the request is destroyed). Default 10 s. */
  deadlineMs: number;
}

/** The limits of `svc serve`. */
export const BODY_LIMITS: Readonly<BodyLimits> = Object.freeze({ maxBytes: 1024 * 1024, deadlineMs: 10_000 });

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
 * The JSON body, or `undefined` after answering 413 for a body over `limits.maxBytes`. A body a
 * framework already parsed onto `req.body` (the server's `handle` mounted after `express.json()`)
 * is that value; a stream already read with nothing on `req.body` rejects (a misconfiguration: a
 * 500, never an empty body), as does a body cut off by the deadline or the client.
 *
 * @throws ValidationError when the body is not JSON.
 * @example
 * ```ts
 * const body = await readJson(req, res);
 * if (body === undefined) return; // already answered 413
 * ```
 */
export async function readJson(req: IncomingMessage, res: ServerResponse, limits: BodyLimits = BODY_LIMITS): Promise<unknown> {
  const body = await readNodeBody(req, limits.maxBytes, limits.deadlineMs);
  if (body.tooLarge) {
    // The rest of the body is left unread: the connection closes once the 413 is sent.
    const message = `the body is larger than ${limits.maxBytes} bytes`;
    writeAnswer(res, closing({ status: 413, headers: { ...JSON_HEADERS }, body: { error: 'too_large', message } }));
    return undefined;
  }
  if ('framework' in body) return body.framework;
  try {
    return JSON.parse(Buffer.from(body.bytes).toString('utf8')) as unknown;
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
