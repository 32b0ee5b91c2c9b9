/**
 * @internal Coalescing of `readChain` calls for {@link PostgresTokenStore}:
 * calls that arrive together are read together (one lean statement for the
 * chains the store knows, one recursive read for the rest; see
 * `chains.ts`), so that under load the database runs a statement or
 * two per batch instead of one per request. Service-account reads join the
 * same batches and ride on its first statement: a service account's token,
 * whose account is read beside its chain, costs one statement, as a person's.
 *
 * T5 (a request that starts after a revoke has committed must see it) decides
 * what may be shared: a call joins only a batch that has NOT been sent yet. The
 * statement of that batch is sent, and so takes its snapshot, after every call
 * in it started. A call never joins a read already on the wire, whose snapshot
 * may predate a revoke that committed before the call started. An account read
 * follows the same rule, so a disabled account is seen by the next request (W2).
 * @module
 */
import { UnavailableError } from '../../../errors';
import type { TokenRecord } from '../../types';
import type { ServiceAccountRecord } from '../../service-accounts';

/** @internal What one batch found: chains by id, accounts by key (each in the store's own form). */
export interface Fetched<F> {
  readonly chains: ReadonlyMap<string, F>;
  readonly accounts: ReadonlyMap<string, unknown>;
}

/**
 * @internal What a batch needs from the store: read the chains of some ids (and
 * some accounts), and turn what was found into records. `F` is the store's own
 * form of a found chain (rows to decode, or records it already knew).
 */
export interface ChainSource<F> {
  /**
   * Read the chains of `ids` and the accounts of `accounts` (keys the store made)
   * within `timeoutMs`, in statements sent from now on. An id or key missing
   * from the answer is unknown (its callers get `null`).
   */
  fetch(ids: readonly string[], timeoutMs: number, accounts: readonly string[]): Promise<Fetched<F>>;
  /**
   * One chain as records, nearest first; called once per caller, so each caller
   * gets its own copies, unless the caller asked for `shared` views (the
   * service's request path, see stores/views.ts). Throws (UnavailableError) on a malformed row.
   */
  decode(found: F, shared: boolean): TokenRecord[];
  /** One found account as a record, once per caller: a fresh one, or a shared frozen one for `shared`; throws (UnavailableError) on a malformed one. */
  decodeAccount(found: unknown, shared: boolean): ServiceAccountRecord;
}

/** @internal Limits of a {@link ChainBatcher}. */
export interface BatchLimits {
  /** Most distinct ids in one statement. */
  readonly maxIds: number;
  /** Most batch statements on the wire at once; further calls wait and coalesce. */
  readonly maxInFlight: number;
  /**
   * Fewest ids of a statement that a gathered batch is split into: a batch of at
   * least twice this many goes out as several statements over the free slots.
   */
  readonly minSplit: number;
  /** Longest time one call may take, from the moment it was made. */
  readonly timeoutMs: number;
}

interface Waiter<T = TokenRecord[]> {
  readonly resolve: (found: T | null) => void;
  readonly reject: (err: unknown) => void;
  /** Shared frozen views will do (the service's request path); else fresh copies. */
  readonly shared: boolean;
}

/** Callers of one id in a batch that has not been sent. */
interface Pending {
  readonly waiters: Waiter[];
}

/** What one batch takes with it: the chains' callers by id, the accounts' by key. */
interface Batch {
  readonly calls: Map<string, Pending>;
  readonly accounts: Map<string, Waiter<ServiceAccountRecord>[]>;
  readonly since: number;
}

/**
 * @internal Coalesces concurrent `readChain` calls into batched statements.
 *
 * @example
 * ```ts
 * const batcher = new ChainBatcher(source, { maxIds: 128, maxInFlight: 4, minSplit: 16, timeoutMs: 5000 });
 * const chain = await batcher.read(id);
 * ```
 */
export class ChainBatcher<F> {
  /** The batch being gathered; replaced by a fresh map the moment it is sent. */
  private pending = new Map<string, Pending>();
  /** Account reads of the batch being gathered, by the store's key. */
  private pendingAccounts = new Map<string, Waiter<ServiceAccountRecord>[]>();
  /** When the oldest call of `pending` was made (its deadline starts there). */
  private pendingSince = 0;
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly source: ChainSource<F>,
    private readonly limits: BatchLimits,
  ) {}

  /**
   * The record of `id` and its ancestors, nearest first, or `null` when
   * unknown; `shared`: the caller only reads them (see {@link ChainSource.decode}).
   */
  read(id: string, shared = false): Promise<TokenRecord[] | null> {
    return new Promise((resolve, reject) => {
      this.gathering();
      const same = this.pending.get(id);
      if (same !== undefined) same.waiters.push({ resolve, reject, shared });
      else this.pending.set(id, { waiters: [{ resolve, reject, shared }] });
      this.schedule();
    });
  }

  /**
   * The account of `key` (the store's key of an org and a name), or `null` when
   * there is none: read with the next batch, on its first statement; `shared`:
   * the caller only reads it (see {@link ChainSource.decodeAccount}).
   */
  readAccount(key: string, shared = false): Promise<ServiceAccountRecord | null> {
    return new Promise((resolve, reject) => {
      this.gathering();
      const same = this.pendingAccounts.get(key);
      if (same !== undefined) same.push({ resolve, reject, shared });
      else this.pendingAccounts.set(key, [{ resolve, reject, shared }]);
      this.schedule();
    });
  }

  /** A call joins the batch being gathered: the first one starts its deadline. */
  private gathering(): void {
    if (this.pending.size === 0 && this.pendingAccounts.size === 0) this.pendingSince = Date.now();
  }

  private waiting(): boolean {
    return this.pending.size > 0 || this.pendingAccounts.size > 0;
  }

  /**
   * Send on the next microtask, so that calls made in the same turn (a
   * `Promise.all`, one I/O callback) share a statement; when every slot is
   * busy, the batch keeps gathering until one frees up.
   */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limits.maxInFlight) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.waiting() && this.inFlight < this.limits.maxInFlight) {
      const batch = this.take();
      const remaining = batch.since + this.limits.timeoutMs - Date.now();
      this.inFlight++;
      // send() settles every caller itself and never rejects; finally only frees the slot.
      void this.send(batch, remaining).finally(() => {
        this.inFlight--;
        if (this.waiting()) this.schedule();
      });
    }
  }

  /**
   * Detach a statement's share of the pending ids (at most `maxIds`) and up to
   * `maxIds` accounts from the pending batch: from now on nobody joins them.
   */
  private take(): Batch {
    const since = this.pendingSince;
    // Calls that all came back together (one statement's callers) make their next calls together: sent as
    // one statement, they would go lock-step, the client idle while the database reads and the other way
    // round. Split over the free slots, the statements overlap (1.7x the in-flight throughput measured).
    const { maxIds, maxInFlight, minSplit } = this.limits;
    const parts = Math.max(1, Math.min(maxInFlight - this.inFlight, Math.floor(this.pending.size / minSplit)));
    const size = Math.min(maxIds, Math.ceil(this.pending.size / parts));
    const calls = this.pending.size <= size ? this.pending : detach(this.pending, size);
    if (calls === this.pending) this.pending = new Map();
    const accounts =
      this.pendingAccounts.size <= this.limits.maxIds ? this.pendingAccounts : detach(this.pendingAccounts, this.limits.maxIds);
    if (accounts === this.pendingAccounts) this.pendingAccounts = new Map();
    // The rest were made no earlier than the batch just taken: its start is a safe bound.
    return { calls, accounts, since };
  }

  private async send({ calls, accounts }: Batch, remainingMs: number): Promise<void> {
    if (remainingMs < 1) {
      failAll(calls, accounts, new UnavailableError('token store unavailable: timed out'));
      return;
    }
    let fetched: Fetched<F>;
    try {
      fetched = await this.source.fetch([...calls.keys()], remainingMs, [...accounts.keys()]);
    } catch (err) {
      // The statement failed: no caller of this batch gets an answer (fail closed).
      failAll(calls, accounts, err);
      return;
    }
    for (const [key, waiters] of accounts) {
      const own = fetched.accounts.get(key);
      for (const w of waiters) {
        try {
          w.resolve(own === undefined ? null : this.source.decodeAccount(own, w.shared));
        } catch (err) {
          w.reject(err);
        }
      }
    }
    const byRoot = fetched.chains;
    for (const [id, p] of calls) {
      const own = byRoot.get(id);
      if (own === undefined) {
        for (const w of p.waiters) w.resolve(null);
        continue;
      }
      // Each id is decoded on its own: a malformed row fails only the callers whose chain holds it.
      for (const w of p.waiters) {
        try {
          w.resolve(this.source.decode(own, w.shared));
        } catch (err) {
          w.reject(err);
        }
      }
    }
  }
}

/** The first `max` entries of `from`, taken out of it. */
function detach<V>(from: Map<string, V>, max: number): Map<string, V> {
  const out = new Map<string, V>();
  for (const [key, value] of from) {
    if (out.size >= max) break;
    out.set(key, value);
    from.delete(key);
  }
  return out;
}

function failAll(calls: Map<string, Pending>, accounts: Map<string, Waiter<ServiceAccountRecord>[]>, err: unknown): void {
  for (const p of calls.values()) for (const w of p.waiters) w.reject(err);
  for (const waiters of accounts.values()) for (const w of waiters) w.reject(err);
}
