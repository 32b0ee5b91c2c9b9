import { describe, it, expect } from 'vitest';
import { ValidationError } from '../../../src/errors';
import { parseScopeFlags, normalizeScopes, LIMITS } from '../../../src/core/scopes';
import { issuesOf } from '../../support/errors';

describe('parseScopeFlags', () => {
  it('S1: parses the repo, org and global forms, one entry per value', () => {
    expect(parseScopeFlags(['acme/web=repo:read,repo:write', 'acme=org:read', 'repo:read'])).toEqual([
      { resource: 'acme/web', permissions: ['repo:read', 'repo:write'] },
      { resource: 'acme', permissions: ['org:read'] },
      { permissions: ['repo:read'] },
    ]);
  });

  it('S1: the global form has no resource key at all', () => {
    const [entry] = parseScopeFlags(['repo:read']);
    expect(entry).toBeDefined();
    expect(Object.prototype.hasOwnProperty.call(entry, 'resource')).toBe(false);
  });

  it('S1: role shorthands pass through for normalizeScopes to judge', () => {
    expect(parseScopeFlags(['acme=role:viewer,repo:write'])).toEqual([{ resource: 'acme', permissions: ['role:viewer', 'repo:write'] }]);
  });

  it('S1: spaces and tabs around items and the resource are ignored', () => {
    expect(parseScopeFlags([' acme/web = repo:read ,\trepo:write\t', '  repo:read  '])).toEqual([
      { resource: 'acme/web', permissions: ['repo:read', 'repo:write'] },
      { permissions: ['repo:read'] },
    ]);
  });

  it('S1: the resource keeps its case here (normalizeScopes lowercases it)', () => {
    expect(parseScopeFlags(['Acme/Web=repo:read'])).toEqual([{ resource: 'Acme/Web', permissions: ['repo:read'] }]);
  });

  it('S1: an empty item is an error located at its flag', () => {
    const issues = issuesOf(() => parseScopeFlags(['repo:read', 'acme=repo:read,,org:read']));
    expect(issues.map((i) => i.pathText)).toEqual(['--scope[1]']);
  });

  it('S1: a trailing comma, a lone "=" and an empty value are empty items', () => {
    const issues = issuesOf(() => parseScopeFlags(['repo:read,', 'acme=', '', '   ']));
    expect(issues.map((i) => i.pathText)).toEqual(['--scope[0]', '--scope[1]', '--scope[2]', '--scope[3]']);
  });

  it('S1: an empty resource before "=" is an error', () => {
    const issues = issuesOf(() => parseScopeFlags(['=repo:read', '  =repo:read']));
    expect(issues.map((i) => i.pathText)).toEqual(['--scope[0]', '--scope[1]']);
  });

  it('S1: more than one "=" is an error', () => {
    const issues = issuesOf(() => parseScopeFlags(['acme/web=repo:read=repo:write']));
    expect(issues.map((i) => i.pathText)).toEqual(['--scope[0]']);
  });

  it('S1: every bad value is reported, one issue per problem', () => {
    const issues = issuesOf(() => parseScopeFlags(['ok=repo:read', '=x', 'a=b=c', 'x,,y', 'fine']));
    expect(issues.map((i) => i.pathText)).toEqual(['--scope[1]', '--scope[2]', '--scope[3]']);
  });

  it('S7: a resource that is not <org> or <org>/<repo> is refused at its flag', () => {
    const bad = ['a/b/c=repo:read', '.acme=repo:read', 'ac me=repo:read', `${'a'.repeat(101)}=repo:read`, 'acme/=repo:read'];
    const issues = issuesOf(() => parseScopeFlags(bad));
    expect(issues.map((i) => i.pathText)).toEqual(bad.map((_, i) => `--scope[${i}]`));
  });

  it('S7 attack: a zero-width space in a resource is refused', () => {
    const issues = issuesOf(() => parseScopeFlags(['ac\u200bme=repo:read']));
    expect(issues).toHaveLength(1);
  });

  it('attack: a newline inside an item is not smoothed over; normalizeScopes refuses it', () => {
    const entries = parseScopeFlags(['repo:read\n']);
    expect(entries).toEqual([{ permissions: ['repo:read\n'] }]);
    expect(() => normalizeScopes(entries)).toThrow(ValidationError);
  });

  it('S1: non-strings, holes and a non-array are ValidationErrors', () => {
    // eslint-disable-next-line no-sparse-arrays
    const holey = ['repo:read', , 'repo:write'] as unknown as string[];
    expect(issuesOf(() => parseScopeFlags(holey)).map((i) => i.pathText)).toEqual(['--scope[1]']);
    expect(issuesOf(() => parseScopeFlags([1, null, {}] as unknown as string[])).map((i) => i.pathText)).toEqual([
      '--scope[0]',
      '--scope[1]',
      '--scope[2]',
    ]);
    expect(issuesOf(() => parseScopeFlags('repo:read' as unknown as string[]))[0]?.pathText).toBe('--scope');
    expect(issuesOf(() => parseScopeFlags(null as unknown as string[]))[0]?.pathText).toBe('--scope');
  });

  it('S1: no values parse to no entries', () => {
    expect(parseScopeFlags([])).toEqual([]);
  });

  it('S8: more values than LIMITS.maxEntries are refused without parsing them', () => {
    const values = Array.from({ length: LIMITS.maxEntries + 1 }, (_, i) => `acme/r${i}=repo:read`);
    expect(issuesOf(() => parseScopeFlags(values))).toHaveLength(1);
    expect(parseScopeFlags(values.slice(0, LIMITS.maxEntries))).toHaveLength(LIMITS.maxEntries);
  });

  it('attack: a 10 MB value is a ValidationError', () => {
    expect(issuesOf(() => parseScopeFlags(['repo:read,'.repeat(1_000_000)])).map((i) => i.pathText)).toEqual(['--scope[0]']);
  });

  it('attack: a Proxy whose getter throws becomes a ValidationError', () => {
    const hostile = new Proxy(['repo:read'], {
      get(target, key) {
        if (key === '0') throw new Error('boom');
        return Reflect.get(target, key);
      },
    });
    expect(() => parseScopeFlags(hostile)).toThrow(ValidationError);
  });

  it('returns fresh entries that do not alias each other', () => {
    const [a, b] = parseScopeFlags(['repo:read', 'repo:read']);
    expect(a).not.toBe(b);
    expect(a?.permissions).not.toBe(b?.permissions);
  });
});
