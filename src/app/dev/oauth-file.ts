/**
 * The dev instance's authorization server state, in `SVC_HOME/oauth.json`
 * (mode 0600: it holds the server's private keys): clients, grants, refresh
 * tokens and the secrets survive a restart of `svc serve`, so a saved sign-in
 * keeps refreshing. Every change is one locked read-modify-write of the file
 * (JsonFile), which suits a dev server's handful of requests; a server with
 * traffic wants `PostgresOAuthStorage`.
 * @module
 */
import { join } from 'node:path';
import { UnavailableError, ValidationError } from '../../errors';
import { JsonFile } from '../../stores';
import type { OAuthEntry, OAuthEntryKind, OAuthSecrets, OAuthStorage } from '../../oauth';

interface Held {
  /** The entry as JSON text. */
  e: string;
  /** Expiry in epoch milliseconds, or null. */
  x: number | null;
  /** Consumed at, in epoch seconds. */
  c?: number;
  g?: string;
  a?: string;
}

interface State {
  secrets?: OAuthSecrets;
  entries: Record<string, Held>;
}

const MAX_ENTRIES = 10_000;

function parse(data: unknown): State {
  const d = data as Partial<State> | null;
  if (typeof d !== 'object' || d === null || typeof d.entries !== 'object' || d.entries === null || Array.isArray(d.entries)) {
    throw new ValidationError([{ path: '', message: 'expected { "entries": { ... } }' }]);
  }
  return {
    ...(d.secrets === undefined ? {} : { secrets: d.secrets }),
    entries: Object.assign(Object.create(null) as Record<string, Held>, d.entries),
  };
}

const keyOf = (kind: OAuthEntryKind, id: string): string => `${kind} ${id}`;

/** @internal The dev instance's {@link OAuthStorage}, in one file of `home`. */
export class FileOAuthStorage implements OAuthStorage {
  readonly #file: JsonFile<State>;

  constructor(home: string) {
    this.#file = new JsonFile<State>(join(home, 'oauth.json'), { mode: 0o600, label: 'OAuth state', parse });
  }

  async #change(fn: (state: State, now: number) => void): Promise<void> {
    await this.#file.update((current) => {
      const state: State = current ?? { entries: Object.create(null) as Record<string, Held> };
      const now = Date.now();
      for (const [k, h] of Object.entries(state.entries)) if (h.x !== null && h.x <= now) Reflect.deleteProperty(state.entries, k);
      fn(state, now);
      return state;
    });
  }

  async #find(match: (key: string, held: Held) => boolean): Promise<OAuthEntry | undefined> {
    const state = await this.#file.read();
    const now = Date.now();
    for (const [k, h] of Object.entries(state?.entries ?? {})) {
      if ((h.x === null || h.x > now) && match(k, h)) {
        const entry = JSON.parse(h.e) as OAuthEntry;
        if (h.c !== undefined) entry.consumed = h.c;
        return entry;
      }
    }
    return undefined;
  }

  set(kind: OAuthEntryKind, id: string, entry: OAuthEntry, expiresAt: Date | null): Promise<void> {
    const key = keyOf(kind, id);
    const alias = kind === 'DeviceCode' ? entry.userCode : kind === 'Session' ? entry.uid : undefined;
    const held: Held = { e: JSON.stringify(entry), x: expiresAt === null ? null : expiresAt.getTime() };
    if (typeof entry.consumed === 'number') held.c = entry.consumed;
    if (typeof entry.grantId === 'string') held.g = entry.grantId;
    if (typeof alias === 'string') held.a = `${kind} ${alias}`;
    return this.#change((state) => {
      if (!(key in state.entries) && Object.keys(state.entries).length >= MAX_ENTRIES) {
        throw new UnavailableError('the dev OAuth state is full (10 000 live entries)');
      }
      state.entries[key] = held;
    });
  }

  get(kind: OAuthEntryKind, id: string): Promise<OAuthEntry | undefined> {
    const key = keyOf(kind, id);
    return this.#find((k) => k === key);
  }

  findByUserCode(userCode: string): Promise<OAuthEntry | undefined> {
    return this.#find((_k, h) => h.a === `DeviceCode ${userCode}`);
  }

  findByUid(uid: string): Promise<OAuthEntry | undefined> {
    return this.#find((_k, h) => h.a === `Session ${uid}`);
  }

  consume(kind: OAuthEntryKind, id: string, at: Date): Promise<void> {
    const key = keyOf(kind, id);
    return this.#change((state) => {
      const h = state.entries[key];
      if (h !== undefined) h.c = Math.floor(at.getTime() / 1000);
    });
  }

  destroy(kind: OAuthEntryKind, id: string): Promise<void> {
    const key = keyOf(kind, id);
    return this.#change((state) => {
      Reflect.deleteProperty(state.entries, key);
    });
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return this.#change((state) => {
      for (const [k, h] of Object.entries(state.entries)) if (h.g === grantId) Reflect.deleteProperty(state.entries, k);
    });
  }

  async initSecrets(fresh: OAuthSecrets): Promise<OAuthSecrets> {
    const now = await this.#file.read();
    if (now?.secrets !== undefined) return now.secrets;
    const after = await this.#file.update((current) => {
      const state: State = current ?? { entries: Object.create(null) as Record<string, Held> };
      if (state.secrets !== undefined) return undefined;
      state.secrets = fresh;
      return state;
    });
    const secrets = after?.secrets ?? (await this.#file.read())?.secrets;
    if (secrets === undefined) throw new UnavailableError('the dev OAuth secrets could not be stored');
    return secrets;
  }
}
