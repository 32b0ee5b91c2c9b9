/**
 * Permissions of an existing `SVC_HOME` (C3): it holds the signing keys and a
 * saved session. A folder others can write to lets them swap `keys.json`; a
 * key file others can read hands them every token. Ours: tightened, and said
 * so. Someone else's and writable by others: refused.
 * @module
 */
import { chmod, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UnavailableError } from '../../errors';
import { codeOf } from '../../stores';

const SECRET_FILES = ['keys.json', 'session.json', 'tokens.json', 'members.json', 'things.json'];

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/**
 * Check (and when ours, tighten) the modes of `home` and the secret files in
 * it; `notice` receives one sentence per change. A missing home is fine (it is
 * created 0700). No-op where there are no POSIX owners (Windows).
 *
 * @throws UnavailableError when `home` is not a folder, or it or a file in it
 *   belongs to another user and others may write to it, or a mode cannot be fixed.
 * @example
 * ```ts
 * await secureHome('/home/me/.svc', (text) => process.stderr.write(`svc: ${text}\n`));
 * ```
 */
export async function secureHome(home: string, notice: (text: string) => void): Promise<void> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return;
  const dir = await statOrNull(home);
  if (dir === null) return;
  if (!dir.isDirectory()) throw new UnavailableError(`SVC_HOME ${home} is not a folder`);
  await fix(home, dir, 0o700, 'SVC_HOME', uid, notice);
  for (const name of SECRET_FILES) {
    const path = join(home, name);
    const st = await statOrNull(path);
    if (st !== null) await fix(path, st, 0o600, name, uid, notice);
  }
}

async function fix(
  path: string,
  st: { mode: number; uid: number },
  want: number,
  what: string,
  uid: number,
  notice: (text: string) => void,
): Promise<void> {
  const loose = st.mode & 0o077;
  if (loose === 0) return;
  if (st.uid !== uid) {
    if ((st.mode & 0o022) !== 0) {
      throw new UnavailableError(
        `${what} ${path} belongs to another user and others may write to it (mode ${octal(st.mode)}); refusing to use it`,
      );
    }
    return;
  }
  try {
    await chmod(path, want);
  } catch (err) {
    throw new UnavailableError(
      `${what} ${path} has mode ${octal(st.mode)} and could not be tightened to ${octal(want)}: ${codeOf(err) ?? 'error'}`,
      { cause: err },
    );
  }
  notice(`${what} ${path} was readable or writable by others (mode ${octal(st.mode)}); tightened to ${octal(want)}`);
}

async function statOrNull(path: string): Promise<{ mode: number; uid: number; isDirectory(): boolean } | null> {
  try {
    return await stat(path);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return null;
    throw new UnavailableError(`cannot inspect ${path}: ${codeOf(err) ?? 'error'}`, { cause: err });
  }
}
