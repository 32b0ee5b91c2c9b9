/**
 * The authorization server's state in this process's memory: right for tests
 * and for one process whose grants may vanish on restart. Its secrets vanish
 * too, so every token it signed stops verifying after a restart: a server
 * that must survive one wants `PostgresOAuthStorage` (or its own storage).
 * @module
 */
import { UnavailableError, ValidationError } from '../../errors';
import type { OAuthEntry, OAuthEntryKind, OAuthSecrets, OAuthStorage } from './types';

interface Held {
  readonly entry: string;
  readonly expiresAt: number;
  readonly grantId: string | undefined;
  /** The secondary key of a `DeviceCode` (its user code) or a `Session` (its uid). */
  readonly alias: string | undefined;
  consumed: number | undefined;
}

const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * Options of {@link MemoryOAuthStorage}.
 *
 * @example
 * ```ts
 * const options: MemoryOAuthStorageOptions = { maxEntries: 10_000 };
 * ```
 */
export interface MemoryOAuthStorageOptions {
  /**
   * Most entries held at once, registered clients apart. When full, expired
   * entries are dropped first; if none is, `set` rejects with
   * `UnavailableError` (the request then fails with `server_error`; nothing
   * live is dropped behind its user's back). Default 100 000; an integer from
   * 1 to 10 000 000.
   */
  maxEntries?: number;
  /**
   * Most registered clients held at once, counted apart from `maxEntries`: a
   * flood of registrations fills this budget only, so known clients still
   * sign in. Default `maxEntries`; an integer from 1 to 10 000 000.
   */
  maxClients?: number;
  /** The clock expiry is judged by. Default `() => new Date()`. */
  now?: () => Date;
}

/**
 * An {@link OAuthStorage} in memory. Each method completes synchronously
 * inside its promise, so concurrent calls are atomic; entries are stored as
 * JSON text, so what a caller does with an object it gave or got changes
 * nothing stored.
 *
 * @example
 * ```ts
 * import { MemoryOAuthStorage } from 'svc-auth/oauth';
 * const storage = new MemoryOAuthStorage();
 * await storage.set('Grant', 'g1', { jti: 'g1', kind: 'Grant' }, new Date(Date.now() + 60_000));
 * (await storage.get('Grant', 'g1'))?.kind; // 'Grant'
 * ```
 */
export class MemoryOAuthStorage implements OAuthStorage {
  readonly #entries = new Map<string, Held>();
  /** `DeviceCode` user codes and `Session` uids -> entry keys. */
  readonly #aliases = new Map<string, string>();
  readonly #max: number;
  readonly #maxClients: number;
  #clients = 0;
  readonly #now: () => Date;
  #secrets: OAuthSecrets | undefined;

  constructor(options: MemoryOAuthStorageOptions = {}) {
    const max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isInteger(max) || max < 1 || max > 10_000_000) {
      throw new ValidationError([{ path: 'options.maxEntries', message: 'must be an integer from 1 to 10 000 000' }]);
    }
    const maxClients = options.maxClients ?? max;
    if (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 10_000_000) {
      throw new ValidationError([{ path: 'options.maxClients', message: 'must be an integer from 1 to 10 000 000' }]);
    }
    if (options.now !== undefined && typeof options.now !== 'function') {
      throw new ValidationError([{ path: 'options.now', message: 'must be a function returning a Date' }]);
    }
    this.#max = max;
    this.#maxClients = maxClients;
    this.#now = options.now ?? (() => new Date());
  }

  /** How many entries are held (expired ones included until they are swept). */
  get size(): number {
    return this.#entries.size;
  }

  set(kind: OAuthEntryKind, id: string, entry: OAuthEntry, expiresAt: Date | null): Promise<void> {
    return run(() => {
      const key = keyOf(kind, id);
      const client = kind === 'Client';
      const full = (): boolean =>
        !this.#entries.has(key) && (client ? this.#clients >= this.#maxClients : this.#entries.size - this.#clients >= this.#max);
      if (full()) this.#sweep();
      if (full()) throw new UnavailableError(`the OAuth memory storage is full (${client ? 'maxClients' : 'maxEntries'})`);
      const consumed = typeof entry.consumed === 'number' ? entry.consumed : undefined;
      const alias = aliasOf(kind, entry);
      this.#delete(key);
      if (client) this.#clients++;
      this.#entries.set(key, {
        entry: JSON.stringify(entry),
        expiresAt: expiresAt === null ? Infinity : expiresAt.getTime(),
        grantId: typeof entry.grantId === 'string' ? entry.grantId : undefined,
        alias,
        consumed,
      });
      if (alias !== undefined) this.#aliases.set(alias, key);
    });
  }

  get(kind: OAuthEntryKind, id: string): Promise<OAuthEntry | undefined> {
    return run(() => this.#read(keyOf(kind, id)));
  }

  findByUserCode(userCode: string): Promise<OAuthEntry | undefined> {
    return run(() => this.#byAlias(`DeviceCode\u0000${userCode}`));
  }

  findByUid(uid: string): Promise<OAuthEntry | undefined> {
    return run(() => this.#byAlias(`Session\u0000${uid}`));
  }

  consume(kind: OAuthEntryKind, id: string, at: Date): Promise<void> {
    return run(() => {
      const held = this.#entries.get(keyOf(kind, id));
      if (held !== undefined) held.consumed = Math.floor(at.getTime() / 1000);
    });
  }

  destroy(kind: OAuthEntryKind, id: string): Promise<void> {
    return run(() => {
      this.#delete(keyOf(kind, id));
    });
  }

  revokeByGrantId(grantId: string): Promise<void> {
    return run(() => {
      for (const [key, held] of this.#entries) if (held.grantId === grantId) this.#delete(key);
    });
  }

  initSecrets(fresh: OAuthSecrets): Promise<OAuthSecrets> {
    return run(() => (this.#secrets ??= structuredClone(fresh)));
  }

  #read(key: string): OAuthEntry | undefined {
    const held = this.#entries.get(key);
    if (held === undefined) return undefined;
    if (held.expiresAt <= this.#now().getTime()) {
      this.#delete(key);
      return undefined;
    }
    const entry = JSON.parse(held.entry) as OAuthEntry;
    if (held.consumed !== undefined) entry.consumed = held.consumed;
    return entry;
  }

  #byAlias(alias: string): OAuthEntry | undefined {
    const key = this.#aliases.get(alias);
    return key === undefined ? undefined : this.#read(key);
  }

  #delete(key: string): void {
    const held = this.#entries.get(key);
    if (held === undefined) return;
    this.#entries.delete(key);
    if (key.startsWith('Client\u0000')) this.#clients--;
    if (held.alias !== undefined && this.#aliases.get(held.alias) === key) this.#aliases.delete(held.alias);
  }

  #sweep(): void {
    const at = this.#now().getTime();
    for (const [key, held] of this.#entries) if (held.expiresAt <= at) this.#delete(key);
  }
}

function aliasOf(kind: OAuthEntryKind, entry: OAuthEntry): string | undefined {
  if (kind === 'DeviceCode' && typeof entry.userCode === 'string') return `DeviceCode\u0000${entry.userCode}`;
  if (kind === 'Session' && typeof entry.uid === 'string') return `Session\u0000${entry.uid}`;
  return undefined;
}

function keyOf(kind: OAuthEntryKind, id: string): string {
  return `${kind}\u0000${id}`;
}

function run<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what fn threw, unchanged
    return Promise.reject(err);
  }
}
