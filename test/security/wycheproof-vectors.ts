/**
 * Loading the Wycheproof test vectors (C2SP/wycheproof, Apache-2.0). The files
 * are not committed (the workplace forbids committing files fetched from other
 * repositories): they are read from `WYCHEPROOF_DIR` (a folder holding the
 * `*.json` files, e.g. as written by `node scripts/wycheproof.mjs`), else from
 * a local bare mirror of the repository (`WYCHEPROOF_GIT_DIR`, default
 * `/work/.mirror/C2SP+wycheproof/repo`) with `git show`. Absent both, the
 * tests skip with a visible message.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const VECTOR_FILES = [
  'json_web_signature_test.json',
  'json_web_key_test.json',
  'ed25519_test.json',
  'ecdsa_secp256r1_sha256_p1363_test.json',
  'hmac_sha256_test.json',
] as const;

const DEFAULT_GIT_DIR = '/work/.mirror/C2SP+wycheproof/repo';

/** The text of one vector file, or `undefined` when no source is available. */
export function loadVectors(name: (typeof VECTOR_FILES)[number]): { text: string; source: string } | undefined {
  const dir = process.env.WYCHEPROOF_DIR;
  if (dir) {
    const path = join(dir, name);
    return existsSync(path) ? { text: readFileSync(path, 'utf8'), source: path } : undefined;
  }
  const gitDir = process.env.WYCHEPROOF_GIT_DIR ?? DEFAULT_GIT_DIR;
  if (!existsSync(gitDir)) return undefined;
  try {
    const text = execFileSync('git', ['--git-dir', gitDir, 'show', `HEAD:testvectors_v1/${name}`], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { text, source: `${gitDir} HEAD:testvectors_v1/${name}` };
  } catch {
    return undefined;
  }
}
