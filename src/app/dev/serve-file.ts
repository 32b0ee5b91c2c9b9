/**
 * `SVC_HOME/serve.json`: the base URL of the `svc serve` running on this home,
 * so that `svc auth login` finds it without being told. Written once the
 * server listens, removed when it stops cleanly. A server that was killed
 * leaves it behind: readers must not trust it blindly (the CLI asks the URL
 * and says the file is stale when nothing answers).
 * @module
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../errors';
import { JsonFile } from '../../stores';

/** What `serve.json` holds. */
export interface ServeRecord {
  /** The server's base URL, as `svc serve` printed it. */
  url: string;
  /** The process id of that `svc serve`. */
  pid: number;
}

function parse(data: unknown): ServeRecord {
  const d = data as Partial<ServeRecord> | null;
  if (typeof d?.url !== 'string' || d.url.length > 2048 || typeof d.pid !== 'number' || !Number.isInteger(d.pid)) {
    throw new ValidationError([{ path: '', message: 'expected { "url", "pid" }' }]);
  }
  return { url: d.url, pid: d.pid };
}

/**
 * The `serve.json` file of `home`.
 *
 * @example
 * ```ts
 * const file = serveFile('/tmp/svc');
 * await file.update(() => ({ url: 'http://127.0.0.1:8080', pid: process.pid }));
 * ```
 */
export function serveFile(home: string): JsonFile<ServeRecord> {
  return new JsonFile<ServeRecord>(join(home, 'serve.json'), { mode: 0o600, label: 'svc serve record', parse });
}

/**
 * Record `url` as the running server of `home`; the function it returns removes the
 * record again, unless another `svc serve` has replaced it since.
 *
 * @example
 * ```ts
 * const forget = await recordServe(home, 'http://127.0.0.1:8080');
 * // ... serve ...
 * await forget();
 * ```
 */
export async function recordServe(home: string, url: string): Promise<() => Promise<void>> {
  const file = serveFile(home);
  const mine: ServeRecord = { url, pid: process.pid };
  await file.update(() => mine);
  return async () => {
    const now = await file.read().catch(() => undefined);
    if (now?.url === mine.url && now.pid === mine.pid) await rm(file.path, { force: true });
  };
}
