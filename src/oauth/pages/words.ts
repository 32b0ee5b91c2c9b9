/**
 * The seven permissions in words, as the consent page shows them: a person
 * approves what they can read, and sees the permission's name beside it.
 * @module
 */
import { PERMISSIONS, type Permission } from '../../core/vocabulary';

const WORDS: Readonly<Record<Permission, string>> = {
  'repo:read': 'Read repositories and the things in them',
  'repo:write': 'Write things in repositories',
  'repo:configure': 'Change the settings of repositories',
  'repo:admin': 'Administer repositories',
  'org:read': 'See organizations',
  'org:configure': 'Change the settings of organizations',
  'org:admin': 'Administer organizations',
};

/**
 * @internal The permission in words.
 *
 * @example
 * ```ts
 * permissionWords('repo:read'); // 'Read repositories and the things in them'
 * ```
 */
export function permissionWords(permission: Permission): string {
  return WORDS[permission];
}

/** @internal The svc permissions among `scopes`, once each, in the documented order. */
export function permissionsIn(scopes: Iterable<string>): Permission[] {
  const asked = new Set(scopes);
  return PERMISSIONS.filter((p) => asked.has(p));
}
