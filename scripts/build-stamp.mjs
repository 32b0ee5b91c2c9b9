// The build stamp: what `npm run build` was made from, so that `npm pack` (prepack) rebuilds only when
// something that goes into dist/ changed. It records a digest of the build's inputs, taken before the
// build starts (an edit made during a build leaves the stamp stale), and a digest of dist/ as the
// build left it (a file changed or deleted in dist/ afterwards leaves it stale too). It lives outside
// dist/ so that it is never packed. Used by scripts/build.mjs and scripts/prepack.mjs.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** What dist/ is made from: the sources, the lockfile (the installed tools and bundled packages), the configs. */
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsup.config.ts',
  'scripts/build.mjs',
  'scripts/build-types.mjs',
  'scripts/build-entries.json',
  'scripts/build-stamp.mjs',
];
const INPUT_FOLDERS = ['src'];

/** Where the stamp is kept, under the project's root. */
export const STAMP = 'node_modules/.cache/svc-auth/build-stamp.json';

function filesUnder(root, dir) {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  const out = [];
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(root, path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** sha256 over each file's path and bytes, in path order; a missing file counts as missing. */
function digest(root, files) {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    const full = join(root, file);
    hash.update(`${file}\0`);
    hash.update(existsSync(full) ? readFileSync(full) : '\0missing\0');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Digest of the build's inputs as they are now. */
export function inputDigest(root) {
  return digest(root, [...INPUT_FILES, ...INPUT_FOLDERS.flatMap((d) => filesUnder(root, d))]);
}

/** Digest of dist/ as it is now. */
export function distDigest(root) {
  return digest(root, filesUnder(root, 'dist'));
}

/** Record that dist/ (as it is now) was built from inputs whose digest was `inputs`. */
export function writeStamp(root, inputs) {
  const file = join(root, STAMP);
  mkdirSync(dirname(file), { recursive: true });
  const stamp = { inputs, dist: distDigest(root), files: filesUnder(root, 'dist').length, builtAt: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(stamp, null, 2)}\n`);
  return stamp;
}

/** Whether dist/ is what a build of the current inputs made: `{ fresh, reason }`. */
export function freshness(root) {
  const file = join(root, STAMP);
  if (!existsSync(file)) return { fresh: false, reason: `no build stamp (${relative(root, file)})` };
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { fresh: false, reason: 'the build stamp is unreadable' };
  }
  if (stamp.inputs !== inputDigest(root))
    return { fresh: false, reason: 'sources, lockfile or build configuration changed since the last build' };
  if (stamp.dist !== distDigest(root)) return { fresh: false, reason: 'dist/ changed since the last build' };
  return { fresh: true, reason: `dist/ was built from these sources at ${stamp.builtAt}` };
}
