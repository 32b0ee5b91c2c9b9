#!/usr/bin/env node
// Every file under src/ has one job and stays under 300 lines (the codebase's
// rule, checked in `npm run lint`): a file past it is a sign two jobs share it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LIMIT = 300;
const over = [];
function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.ts')) {
      const lines = readFileSync(path, 'utf8').split('\n').length - 1;
      if (lines > LIMIT) over.push(`${path}: ${lines} lines`);
    }
  }
}
walk('src');
if (over.length > 0) {
  process.stderr.write(`check-size: files over ${LIMIT} lines (split them by job):\n  ${over.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`check-size: every file under src/ is at most ${LIMIT} lines\n`);
