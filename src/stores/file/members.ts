/**
 * The membership store of the CLI's dev instance: `<dir>/members.json`, changed
 * under the lock shared by processes (C3), like the token store beside it.
 * @module
 */
import { join } from 'node:path';
import { ValidationError } from '../../errors';
import { checkUserId, isPlainObject, type RoleName, type UserRoles } from '../../core/vocabulary';
import { JsonFile } from './json-file';
import { checkResource, checkRole, MembershipTable, type Membership, type MembershipStore } from '../membership';
import { checkDir, timing, type FileStoreOptions } from './store';

const FORMAT_VERSION = 1;

/**
 * A {@link MembershipStore} in `<dir>/members.json` (mode 0600; the directory is
 * created with mode 0700): the dev instance's `svc member ...` administration.
 *
 * @example
 * ```ts
 * import { FileMembershipStore } from 'svc-auth/stores';
 * const members = new FileMembershipStore(process.env.SVC_HOME ?? '.svc');
 * await members.set('alice', 'acme/web', 'editor');
 * await members.list(); // [{ user: 'alice', resource: 'acme/web', role: 'editor' }]
 * ```
 */
export class FileMembershipStore implements MembershipStore {
  /** The JSON file behind this store. */
  private readonly file: JsonFile<MembershipTable>;

  constructor(dir: string, options: FileStoreOptions = {}) {
    this.file = new JsonFile<MembershipTable>(join(checkDir(dir), 'members.json'), {
      ...timing(options),
      mode: 0o600,
      label: 'membership store',
      parse: parseMembers,
      serialize: (table) => ({ version: FORMAT_VERSION, members: table.list() }),
    });
  }

  async rolesOf(userId: string): Promise<UserRoles> {
    checkUserId(userId);
    const table = (await this.file.read()) ?? new MembershipTable();
    return table.rolesOf(userId);
  }

  async set(userId: string, resource: string, role: RoleName): Promise<void> {
    checkUserId(userId);
    checkResource(resource);
    checkRole(role);
    await this.file.update((current) => {
      const table = current ?? new MembershipTable();
      table.set(userId, resource, role);
      return table;
    });
  }

  async remove(userId: string, resource: string): Promise<boolean> {
    checkUserId(userId);
    checkResource(resource);
    let removed = false;
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      removed = current.remove(userId, resource);
      return removed ? current : undefined;
    });
    return removed;
  }

  async list(): Promise<Membership[]> {
    const table = await this.file.read();
    return table ? table.list() : [];
  }
}

function parseMembers(data: unknown): MembershipTable {
  if (!isPlainObject(data) || data.version !== FORMAT_VERSION || !Array.isArray(data.members)) {
    throw new ValidationError([{ path: '', message: `expected { "version": ${FORMAT_VERSION}, "members": [...] }` }]);
  }
  const table = new MembershipTable();
  data.members.forEach((row: unknown, i) => {
    const at = `members[${i}]`;
    if (!isPlainObject(row)) throw new ValidationError([{ path: at, message: 'expected { user, resource, role }' }]);
    table.set(checkUserId(row.user, `${at}.user`), checkResource(row.resource, `${at}.resource`), checkRole(row.role, `${at}.role`));
  });
  return table;
}
