#!/usr/bin/env node
// Extract the Wycheproof vector files that svc-auth's tests use (C2SP/wycheproof,
// Apache-2.0) from a local git mirror into .wycheproof/ (git-ignored), for
// `WYCHEPROOF_DIR=.wycheproof npx vitest run test/security/wycheproof.test.ts`.
// The files are never committed: see docs/security.md.
//
// Usage: node scripts/wycheproof.mjs [<git dir of C2SP/wycheproof>] [<out dir>]
//   (a bare mirror or a clone's .git; default $WYCHEPROOF_GIT_DIR, else /work/.mirror/C2SP+wycheproof/repo)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILES = [
  'json_web_signature_test.json',
  'json_web_key_test.json',
  'ed25519_test.json',
  'ecdsa_secp256r1_sha256_p1363_test.json',
  'hmac_sha256_test.json',
];
const gitDir = process.argv[2] ?? process.env.WYCHEPROOF_GIT_DIR ?? '/work/.mirror/C2SP+wycheproof/repo';
const out = process.argv[3] ?? '.wycheproof';
mkdirSync(out, { recursive: true });
const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
for (const name of FILES) {
  const text = execFileSync('git', ['--git-dir', gitDir, 'show', `HEAD:testvectors_v1/${name}`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(join(out, name), text);
}
writeFileSync(
  join(out, 'SOURCE.txt'),
  `Wycheproof test vectors, https://github.com/C2SP/wycheproof (Apache License 2.0), commit ${commit}.\nExtracted by scripts/wycheproof.mjs; not part of svc-auth and never committed.\n`,
);
process.stdout.write(`wrote ${FILES.length} files from ${gitDir} @ ${commit.slice(0, 12)} to ${out}/\n`);
