#!/usr/bin/env node
// Every file under src/ has one job and stays under 300 lines, and every folder under src/ holds at
// most 12 .ts files directly (the codebase's rules, checked in `npm run lint`): a file past the first
// limit is a sign two jobs share it; a folder past the second, that its files want subfolders by job.
// README.md stays at most 220 lines.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LIMIT = 300;
const FOLDER_LIMIT = 12;
const over = [];
const crowded = [];
function walk(dir) {
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.ts')) {
      files++;
      const lines = readFileSync(path, 'utf8').split('\n').length - 1;
      if (lines > LIMIT) over.push(`${path}: ${lines} lines`);
    }
  }
  if (files > FOLDER_LIMIT) crowded.push(`${dir}/: ${files} files`);
}
walk('src');
// The README is a first screen and a map to docs/, not the manual: past this, a section belongs in docs/.
const README_LIMIT = 220;
const readmeLines = readFileSync('README.md', 'utf8').split('\n').length - 1;
if (readmeLines > README_LIMIT) over.push(`README.md: ${readmeLines} lines (at most ${README_LIMIT}; move a section to docs/)`);
if (over.length > 0) process.stderr.write(`check-size: files over ${LIMIT} lines (split them by job):\n  ${over.join('\n  ')}\n`);
if (crowded.length > 0)
  process.stderr.write(
    `check-size: folders with more than ${FOLDER_LIMIT} .ts files (make subfolders by job):\n  ${crowded.join('\n  ')}\n`,
  );
if (over.length > 0 || crowded.length > 0) process.exit(1);
process.stdout.write(`check-size: every file under src/ is at most ${LIMIT} lines, every folder holds at most ${FOLDER_LIMIT} .ts files\n`);
