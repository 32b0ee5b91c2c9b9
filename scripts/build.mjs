#!/usr/bin/env node
// `npm run build`: dist/ from scratch. tsup bundles the JavaScript (ESM, CJS, the `svc` program) in a
// process of its own while scripts/build-types.mjs makes every entry's declarations once, in this one;
// then the build stamp records what dist/ was made from, so that `npm pack` does not build it again
// (scripts/prepack.mjs).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inputDigest, writeStamp } from './build-stamp.mjs';
import { buildTypes } from './build-types.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const started = Date.now();
const inputs = inputDigest(root);
rmSync(join(root, 'dist'), { recursive: true, force: true });

// tsup runs in a process of its own, so that it works while the declaration step below takes this one.
const child = spawn(join(root, 'node_modules/.bin/tsup'), [], { cwd: root, stdio: 'inherit' });
const tsup = new Promise((done, fail) => {
  child.on('error', fail);
  child.on('exit', (code, signal) => (code === 0 ? done() : fail(new Error(`tsup exited with ${signal ?? code}`))));
});
tsup.catch(() => undefined); // awaited below, after the declarations; a failure is reported there
try {
  const types = Date.now();
  const files = await buildTypes();
  console.log(`DTS ${files.length} declaration files for every entry in ${Date.now() - types} ms`);
  await tsup;
} catch (err) {
  console.error(`build failed: ${err instanceof Error ? err.message : String(err)}`);
  if (child.exitCode === null) child.kill();
  // A half-made dist/ must not look fresh to prepack: no stamp is written, and the old one goes with dist/.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  process.exit(1);
}
const stamp = writeStamp(root, inputs);
console.log(`build: ${stamp.files} files in dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
