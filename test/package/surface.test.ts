/**
 * The public surface by task: the root keeps every name it had in 0.1.0 (scripts/api-0.1.0.json), the
 * names that moved to `svc-auth/policy` and `svc-auth/scanning` stay at the root marked
 * `@deprecated Import from 'svc-auth/<subpath>'`, the contract's names stay at the root unmarked, and
 * the table of docs/architecture.md ("The public surface") says exactly that, name by name.
 * (scripts/check-pack.mjs proves the same of the packed tarball.)
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from 'svc-auth';
import * as policy from 'svc-auth/policy';
import * as scanning from 'svc-auth/scanning';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const API = JSON.parse(readFileSync(join(ROOT, 'scripts/api-0.1.0.json'), 'utf8')) as { values: string[]; types: string[] };
const SUBPATHS = { policy, scanning } as const;
type Subpath = keyof typeof SUBPATHS;

/** Each entry's exported names (values and types), and the root's `@deprecated` ones with their text. */
function exportsOf(): { names: Record<'root' | Subpath, Set<string>>; deprecated: Map<string, string> } {
  const files = { root: 'src/index.ts', policy: 'src/entries/policy.ts', scanning: 'src/entries/scanning.ts' };
  const program = ts.createProgram(
    Object.values(files).map((f) => join(ROOT, f)),
    {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  const deprecated = new Map<string, string>();
  const names = Object.fromEntries(
    Object.entries(files).map(([entry, f]) => {
      const mod = checker.getSymbolAtLocation(program.getSourceFile(join(ROOT, f))!)!;
      const list = checker.getExportsOfModule(mod);
      if (entry === 'root')
        for (const x of list) {
          const tag = x.getJsDocTags(checker).find((t) => t.name === 'deprecated');
          if (tag) deprecated.set(x.getName(), ts.displayPartsToString(tag.text));
        }
      return [entry, new Set(list.map((x) => x.getName()))];
    }),
  ) as Record<'root' | Subpath, Set<string>>;
  return { names, deprecated };
}
const { names, deprecated } = exportsOf();

/** The rows of the table in docs/architecture.md's "The public surface": name, subpath, kept or deprecated. */
function table(): { name: string; subpath: string; root: string }[] {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = page.slice(page.indexOf('## The public surface'), page.indexOf('\n## ', page.indexOf('## The public surface') + 1));
  return [...section.matchAll(/^\| `([\w$]+)` \| (\w+) \| (\w+) \|/gm)].map((m) => ({ name: m[1]!, subpath: m[2]!, root: m[3]! }));
}

describe('the public surface', () => {
  it('the root still exports every 0.1.0 name: each value at run time, each type to TypeScript', () => {
    const runtime = root as Record<string, unknown>;
    expect(API.values.filter((n) => runtime[n] === undefined)).toEqual([]);
    expect([...API.values, ...API.types].filter((n) => !names.root.has(n))).toEqual([]);
  });

  it('the root exports the request types its functions take (BearerRequest, NodeLikeRequest)', () => {
    expect(names.root.has('BearerRequest')).toBe(true);
    expect(names.root.has('NodeLikeRequest')).toBe(true);
  });

  it('a moved name is the same object at the root and in its subpath (instanceof holds across entries)', () => {
    for (const [sub, mod] of Object.entries(SUBPATHS))
      for (const [name, value] of Object.entries(mod))
        if (name in root) expect([sub, name, (root as Record<string, unknown>)[name]]).toEqual([sub, name, value]);
    expect(policy.createGrant({ roles: {} })).toBeInstanceOf(root.Grant);
  });

  it('every deprecated root name points to a subpath that exports it, and was a 0.1.0 name', () => {
    expect(deprecated.size).toBeGreaterThan(0);
    for (const [name, text] of deprecated) {
      const sub = /^Import from 'svc-auth\/(policy|scanning)'\.$/.exec(text)?.[1] as Subpath | undefined;
      expect([name, sub]).toEqual([name, expect.stringMatching(/^(policy|scanning)$/)]);
      expect([name, names[sub!].has(name)]).toEqual([name, true]);
      expect([...API.values, ...API.types]).toContain(name);
    }
  });

  it("docs/architecture.md's table lists exactly the subpaths' names, and which stay at the root undeprecated", () => {
    const rows = table();
    for (const sub of Object.keys(SUBPATHS) as Subpath[])
      expect(
        rows
          .filter((r) => r.subpath === sub)
          .map((r) => r.name)
          .sort(),
      ).toEqual([...names[sub]].sort());
    expect(
      rows
        .filter((r) => r.root === 'deprecated')
        .map((r) => r.name)
        .sort(),
    ).toEqual([...deprecated.keys()].sort());
    for (const r of rows.filter((r) => r.root === 'kept'))
      expect([r.name, names.root.has(r.name), deprecated.has(r.name)]).toEqual([r.name, true, false]);
    expect(rows.every((r) => r.root === 'kept' || r.root === 'deprecated')).toBe(true);
  });

  it('the names of the service contract stay at the root, not deprecated', () => {
    // The names the service's API is specified with: its contract, kept at the root.
    const contract = [
      'createAuth',
      'generateKeyRing',
      'importKeyRing',
      'MemoryTokenStore',
      'TOKEN_PATTERN',
      'authorize',
      'createGrant',
      'Grant',
      'parseScopeFlags',
      'parseScopesJson',
      'normalizeScopes',
      'PERMISSIONS',
      'ROLES',
      'Permission',
      'RoleName',
      'Scope',
      'ScopeEntry',
      'UserRoles',
      'Decision',
      'KeyRing',
      'Auth',
      'TokenApi',
      'TokenStore',
      'Principal',
      'TokenInfo',
      'SvcAuthError',
      'ValidationError',
      'AuthenticationError',
      'ForbiddenError',
      'NotFoundError',
      'ConflictError',
      'UnavailableError',
    ];
    expect(contract.filter((n) => !names.root.has(n) || deprecated.has(n))).toEqual([]);
  });
});
