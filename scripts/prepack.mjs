#!/usr/bin/env node
// `npm pack` / `npm publish` (prepack): build dist/ only when it is not what `npm run build` made from
// the current sources, lockfile and build configuration (scripts/build-stamp.mjs says which). Runs in
// the package's folder, as npm runs it.
import { spawnSync } from 'node:child_process';
import { freshness } from './build-stamp.mjs';

const root = process.cwd();
const state = freshness(root);
if (state.fresh) {
  console.error(`prepack: not rebuilding: ${state.reason}`);
} else {
  console.error(`prepack: building: ${state.reason}`);
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const r = spawnSync(npm[0], [...npm[1], 'run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const after = freshness(root);
  if (!after.fresh) {
    console.error(`prepack: the build left dist/ without a matching stamp (${after.reason})`);
    process.exit(1);
  }
}
