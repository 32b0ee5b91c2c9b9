/**
 * Reading a posted HTML form: `application/x-www-form-urlencoded` only, at most
 * 8 KiB (the sign-in and consent forms hold a few short fields), read by the
 * one body reader (its deadline, and its rule for a body a framework read
 * first); anything else is refused before it is parsed.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { readBody } from '../resources';

const MAX_FORM_BYTES = 8 * 1024;

/**
 * @internal The fields of the posted form (a field given twice is refused), or why it cannot be
 * read (`unread`: bytes of it may still be on the way, so the answer closes the connection).
 */
export async function readForm(req: IncomingMessage): Promise<{ fields: Map<string, string> } | { problem: string; unread?: true }> {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded'))
    return { problem: 'expected a form (application/x-www-form-urlencoded)', unread: true };
  const read = await readBody(req, MAX_FORM_BYTES);
  if (read.status === 'too_large') return { problem: 'the form is too large', unread: true };
  if (read.status !== 'ok') return { problem: 'the form could not be read' };
  const fields = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(read.body.toString('utf8'))) {
    if (fields.has(k)) return { problem: `the form field ${k.slice(0, 40)} was sent twice` };
    fields.set(k, v);
  }
  return { fields };
}
