/**
 * Reading a posted HTML form: `application/x-www-form-urlencoded` only, at most
 * 8 KiB (the sign-in and consent forms hold a few short fields), within a
 * deadline; anything else is refused before it is parsed.
 * @module
 */
import type { IncomingMessage } from 'node:http';

const MAX_FORM_BYTES = 8 * 1024;
const FORM_TIMEOUT_MS = 10_000;

/** @internal The fields of the posted form (a field given twice is refused), or why it cannot be read. */
export async function readForm(req: IncomingMessage): Promise<{ fields: Map<string, string> } | { problem: string }> {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded')) return { problem: 'expected a form (application/x-www-form-urlencoded)' };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_FORM_BYTES) return { problem: 'the form is too large' };
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => req.destroy(), FORM_TIMEOUT_MS);
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_FORM_BYTES) return { problem: 'the form is too large' };
      chunks.push(chunk as Buffer);
    }
  } catch {
    return { problem: 'the form could not be read' };
  } finally {
    clearTimeout(timer);
  }
  const fields = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(Buffer.concat(chunks, size).toString('utf8'))) {
    if (fields.has(k)) return { problem: `the form field ${k.slice(0, 40)} was sent twice` };
    fields.set(k, v);
  }
  return { fields };
}
