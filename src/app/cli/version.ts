/**
 * The package version for `svc --version`, read from the package's own
 * `package.json`: found by walking up from this module, which works both from
 * the source tree (`src/app/cli/`) and from the built `dist/cli.js`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of svc-auth, or `'unknown'` when its package.json cannot be found.
 *
 * @example
 * ```ts
 * packageVersion(); // '0.1.0'
 * ```
 */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'svc-auth' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: look one folder up
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return 'unknown';
}
