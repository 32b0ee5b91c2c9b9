/**
 * The dev server's contents: things per repo, each written as a commit, in
 * `SVC_HOME/things.json` (a locked, atomically replaced `JsonFile`). Kept as
 * arrays on disk and in `Map`s in memory, so that no org, repo or thing name
 * (`__proto__` included) ever becomes an object key.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ValidationError } from '../../errors';
import { JsonFile } from '../../stores';
import type { Thing, ThingStore } from '../server';

/** The head of a repo that has no commit yet. */
export const INITIAL_COMMIT = '0'.repeat(40);

interface RepoState {
  head: string;
  things: Map<string, Thing>;
}

type Table = Map<string, RepoState>;

/**
 * The reference server's things in the dev instance, keyed by lowercase
 * `org/repo` and the case-sensitive thing name. Callers authorize first: this
 * store trusts its names.
 *
 * @example
 * ```ts
 * const things = new FileThingStore('/tmp/svc');
 * const { commit } = await things.put('acme/web', 'Doc/readme', 'hello', 'svc:default/users/Identity/alice');
 * await things.get('acme/web', 'Doc/readme'); // { name, content: 'hello', commit, committer }
 * await things.head('acme/web');              // commit
 * ```
 */
export class FileThingStore implements ThingStore {
  private readonly file: JsonFile<Table>;

  constructor(home: string) {
    this.file = new JsonFile<Table>(join(home, 'things.json'), { mode: 0o600, label: 'things file', parse, serialize });
  }

  /** The last commit of a repo, or {@link INITIAL_COMMIT}. */
  async head(repo: string): Promise<string> {
    return (await this.file.read())?.get(repo)?.head ?? INITIAL_COMMIT;
  }

  /** A thing, or `undefined`. */
  async get(repo: string, name: string): Promise<Thing | undefined> {
    return (await this.file.read())?.get(repo)?.things.get(name);
  }

  /** Write a thing as a new commit (random 40-hex id), which becomes the repo's head. */
  async put(repo: string, name: string, content: unknown, committer: string): Promise<Thing> {
    const thing: Thing = { name, content, commit: randomBytes(20).toString('hex'), committer };
    await this.file.update((current) => {
      const table: Table = current ?? new Map<string, RepoState>();
      let state = table.get(repo);
      if (state === undefined) {
        state = { head: INITIAL_COMMIT, things: new Map() };
        table.set(repo, state);
      }
      state.things.set(name, thing);
      state.head = thing.commit;
      return table;
    });
    return thing;
  }
}

function serialize(table: Table): unknown {
  return {
    version: 1,
    repos: Array.from(table, ([repo, s]) => ({ repo, head: s.head, things: Array.from(s.things.values()) })),
  };
}

function parse(data: unknown): Table {
  const bad = (): never => {
    throw new ValidationError([{ path: '', message: 'expected { "version": 1, "repos": [{ repo, head, things: [...] }] }' }]);
  };
  const d = data as { version?: unknown; repos?: unknown } | null;
  if (d?.version !== 1 || !Array.isArray(d.repos)) bad();
  const table: Table = new Map();
  for (const r of d?.repos as unknown[]) {
    const row = r as { repo?: unknown; head?: unknown; things?: unknown } | null;
    if (typeof row?.repo !== 'string' || typeof row.head !== 'string' || !Array.isArray(row.things)) return bad();
    const things = new Map<string, Thing>();
    for (const t of row.things as unknown[]) {
      const th = t as Partial<Record<keyof Thing, unknown>> | null;
      if (typeof th?.name !== 'string' || typeof th.commit !== 'string' || typeof th.committer !== 'string') return bad();
      things.set(th.name, { name: th.name, content: th.content ?? null, commit: th.commit, committer: th.committer });
    }
    table.set(row.repo, { head: row.head, things });
  }
  return table;
}
