/**
 * Reading `svc auth login --workload-token <file|->`: a CI job writes its
 * identity token to a file or pipes it in. Bounded (an identity token is a
 * few KiB), trimmed, and refused in words when it is empty or not a JWT's
 * shape, before any request is made with it.
 * @module
 */
import { open } from 'node:fs/promises';
import { ValidationError } from '../../../errors';

/** The largest identity token read: GitHub's are about 1.5 KiB, Kubernetes' about 1 KiB. */
const MAX_TOKEN_BYTES = 16 * 1024;

const refuse = (message: string): ValidationError => new ValidationError([{ path: '--workload-token', message }]);

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_TOKEN_BYTES) throw refuse(`stdin holds more than ${MAX_TOKEN_BYTES / 1024} KiB: not an identity token`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readFileBounded(path: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw refuse(`cannot read ${path}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  try {
    const buf = Buffer.alloc(MAX_TOKEN_BYTES + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_TOKEN_BYTES) throw refuse(`${path} is larger than ${MAX_TOKEN_BYTES / 1024} KiB: not an identity token`);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The identity token in `from` (a path, or `-` for stdin), trimmed.
 *
 * @throws ValidationError (path `--workload-token`) when it cannot be read, is too large, empty, or not a JWT's shape.
 * @example
 * ```ts
 * const jwt = await readWorkloadToken('-'); // echo "$ID_TOKEN" | svc auth login --workload-token -
 * ```
 */
export async function readWorkloadToken(from: string): Promise<string> {
  const bytes = from === '-' ? await readStdin() : await readFileBounded(from);
  const text = bytes.toString('utf8').trim();
  if (text === '') throw refuse(`${from === '-' ? 'stdin' : from} is empty: expected the workload's identity token`);
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(text)) {
    throw refuse(`${from === '-' ? 'stdin' : from} does not hold a JWT (three base64url parts separated by dots)`);
  }
  return text;
}
