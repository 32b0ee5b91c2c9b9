/**
 * @internal Coalescing of `readChain` calls for {@link PostgresTokenStore}:
 * calls that arrive together are read together (one lean statement for the
 * chains the store knows, one recursive read for the rest; see
 * `chains.ts`), so that under load the database runs a statement or
 * two per batch instead of one per request.
 *
 * T5 (a request that starts after a revoke has committed must see it) decides
 * what may be shared: a call joins only a batch that has NOT been sent yet. The
 * statement of that batch is sent, and so takes its snapshot, after every call
 * in it started. A call never joins a read already on the wire, whose snapshot
 * may predate a revoke that committed before the call started.
 * @module
 */
import { UnavailableError } from '../../../errors';
import type { TokenRecord } from '../../types';

/**
 * @internal What a batch needs from the store: read the chains of some ids, and
 * turn what was found for one id into records. `F` is the store's own form of a
 * found chain (rows to decode, or records it already knew).
 */
export interface ChainSource<F> {
  /**
   * Read the chains of `ids` within `timeoutMs`, in statements sent from now on.
   * An id missing from the answer is unknown (its callers get `null`).
   */
  fetch(ids: readonly string[], timeoutMs: number): Promise<ReadonlyMap<string, F>>;
  /**
   * One chain as records, nearest first; called once per caller, so each caller
   * gets its own copies, unless the caller asked for `shared` views (the
   * service's request path, see stores/views.ts). Throws (UnavailableError) on a malformed row.
   */
  decode(found: F, shared: boolean): TokenRecord[];
}

/** @internal Limits of a {@link ChainBatcher}. */
export interface BatchLimits {
  /** Most distinct ids in one statement. */
  readonly maxIds: number;
  /** Most batch statements on the wire at once; further calls wait and coalesce. */
  readonly maxInFlight: number;
  /** Longest time one call may take, from the moment it was made. */
  readonly timeoutMs: number;
}

interface Waiter {
  readonly resolve: (chain: TokenRecord[] | null) => void;
  readonly reject: (err: unknown) => void;
  /** Shared frozen views will do (the service's request path); else fresh copies. */
  readonly shared: boolean;
}

/** Callers of one id in a batch that has not been sent. */
interface Pending {
  readonly waiters: Waiter[];
}

/**
 * @internal Coalesces concurrent `readChain` calls into batched statements.
 *
 * @example
 * ```ts
 * const batcher = new ChainBatcher(source, { maxIds: 128, maxInFlight: 4, timeoutMs: 5000 });
 * const chain = await batcher.read(id);
 * ```
 */
export class ChainBatcher<F> {
  /** The batch being gathered; replaced by a fresh map the moment it is sent. */
  private pending = new Map<string, Pending>();
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
      if (this.pending.size === 0) this.pendingSince = Date.now();
      const same = this.pending.get(id);
      if (same !== undefined) same.waiters.push({ resolve, reject, shared });
      else this.pending.set(id, { waiters: [{ resolve, reject, shared }] });
      this.schedule();
    });
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
    while (this.pending.size > 0 && this.inFlight < this.limits.maxInFlight) {
      const batch = this.take();
      const remaining = batch.since + this.limits.timeoutMs - Date.now();
      this.inFlight++;
      // send() settles every caller itself and never rejects; finally only frees the slot.
      void this.send(batch.calls, remaining).finally(() => {
        this.inFlight--;
        if (this.pending.size > 0) this.schedule();
      });
    }
  }

  /** Detach up to `maxIds` ids from the pending batch: from now on nobody joins them. */
  private take(): { calls: Map<string, Pending>; since: number } {
    const since = this.pendingSince;
    if (this.pending.size <= this.limits.maxIds) {
      const calls = this.pending;
      this.pending = new Map();
      return { calls, since };
    }
    const calls = new Map<string, Pending>();
    for (const [id, p] of this.pending) {
      if (calls.size >= this.limits.maxIds) break;
      calls.set(id, p);
      this.pending.delete(id);
    }
    // The rest were made no earlier than the batch just taken: its start is a safe bound.
    return { calls, since };
  }

  private async send(calls: Map<string, Pending>, remainingMs: number): Promise<void> {
    if (remainingMs < 1) {
      failAll(calls, new UnavailableError('token store unavailable: timed out'));
      return;
    }
    let byRoot: ReadonlyMap<string, F>;
    try {
      byRoot = await this.source.fetch([...calls.keys()], remainingMs);
    } catch (err) {
      // The statement failed: no caller of this batch gets an answer (fail closed).
      failAll(calls, err);
      return;
    }
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

function failAll(calls: Map<string, Pending>, err: unknown): void {
  for (const p of calls.values()) for (const w of p.waiters) w.reject(err);
}
