/**
 * The public surface by task: every root name has a row in the table of docs/architecture.md ("The root, by
 * task") and the count stays under its cap; the root keeps no deprecated alias; the names of `svc-auth/policy`,
 * `svc-auth/scanning`, `svc-auth/stores` and `svc-auth/leaks` are listed with whether the root exports them too; the contract's names
 * stay at the root. (scripts/check-pack.mjs proves the same of the packed tarball.)
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from 'svc-auth';
import * as leaks from 'svc-auth/leaks';
import * as policy from 'svc-auth/policy';
import * as scanning from 'svc-auth/scanning';
import * as stores from 'svc-auth/stores';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const SUBPATHS = { policy, scanning, stores, leaks } as const;
type Subpath = keyof typeof SUBPATHS;
// The root stays under 70 names. It only goes down: a new root name replaces one, or goes to a subpath.
const ROOT_CAP = 69;

/** Each entry's exported names (values and types), and the root's `@deprecated` ones with their text. */
function exportsOf(): { names: Record<'root' | Subpath, Set<string>>; deprecated: Map<string, string> } {
  const files = {
    root: 'src/index.ts',
    policy: 'src/entries/policy.ts',
    scanning: 'src/entries/scanning.ts',
    stores: 'src/entries/stores.ts',
    leaks: 'src/entries/leaks.ts',
  };
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

/** A section of docs/architecture.md, from its heading to the next heading. */
function section(heading: string): string {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = page.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  const end = page.indexOf('\n#', start + 1);
  return page.slice(start, end === -1 ? undefined : end);
}

/** The names in the rows of "The root, by task", in order, with repeats. */
function rootRows(): string[] {
  return [...section('### The root, by task').matchAll(/^\| [^|]+ \| (.+) \|$/gm)]
    .filter((m) => m[1]!.startsWith('`'))
    .flatMap((m) => [...m[1]!.matchAll(/`([\w$]+)`/g)].map((n) => n[1]!));
}

/** The rows of "The subpaths that share names with the root": name, subpath, kept or no. */
function table(): { name: string; subpath: string; root: string }[] {
  return [...section('### The subpaths that share names').matchAll(/^\| `([\w$]+)` \| (\w+) \| (\w+) \|/gm)].map((m) => ({
    name: m[1]!,
    subpath: m[2]!,
    root: m[3]!,
  }));
}

describe('the public surface', () => {
  it('every root name has one row in the architecture table, and the table names nothing the root lacks', () => {
    const rows = rootRows();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((n, i) => rows.indexOf(n) !== i)).toEqual([]);
    expect([...names.root].filter((n) => !rows.includes(n)).sort()).toEqual([]);
    expect(rows.filter((n) => !names.root.has(n)).sort()).toEqual([]);
  });

  it(`the root stays at most ${ROOT_CAP} names, and keeps no deprecated alias`, () => {
    expect(names.root.size).toBeLessThanOrEqual(ROOT_CAP);
    expect([...deprecated.keys()]).toEqual([]);
  });

  it('the leak endpoints are in svc-auth/leaks, not at the root; reportLeaked stays on Auth', () => {
    for (const n of ['credentialRevocationHandler', 'githubSecretScanningHandler', 'GITHUB_SECRET_SCANNING_KEYS_URL'])
      expect([n, n in leaks, n in root]).toEqual([n, true, false]);
    expect(names.root.has('LeakReport')).toBe(true);
  });

  it('the root exports the request types its functions take (BearerRequest, NodeLikeRequest)', () => {
    expect(names.root.has('BearerRequest')).toBe(true);
    expect(names.root.has('NodeLikeRequest')).toBe(true);
  });

  it('a name in a subpath and at the root is the same object (instanceof holds across entries)', () => {
    for (const [sub, mod] of Object.entries(SUBPATHS))
      for (const [name, value] of Object.entries(mod))
        if (name in root) expect([sub, name, (root as Record<string, unknown>)[name]]).toEqual([sub, name, value]);
    expect(policy.createGrant({ roles: {} })).toBeInstanceOf(root.Grant);
  });

  it("docs/architecture.md's subpath table lists exactly the subpaths' names, and which the root exports too", () => {
    const rows = table();
    for (const sub of Object.keys(SUBPATHS) as Subpath[])
      expect(
        rows
          .filter((r) => r.subpath === sub)
          .map((r) => r.name)
          .sort(),
      ).toEqual([...names[sub]].sort());
    for (const r of rows) expect([r.name, names.root.has(r.name)]).toEqual([r.name, r.root === 'kept']);
    expect(rows.every((r) => r.root === 'kept' || r.root === 'no')).toBe(true);
  });

  it('the names of the service contract stay at the root', () => {
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
    expect(contract.filter((n) => !names.root.has(n))).toEqual([]);
  });
});
