/**
 * Last-used times of PATs and component tokens, recorded off the request path.
 *
 * `authenticate` tells the recorder which token it accepted; the recorder keeps
 * the time it last recorded per token and, at most once per interval, queues a
 * write of that use: its time, client address and user agent (so a token used
 * from several places within one interval shows the first of them; the next
 * interval records whichever comes next). Queued writes are batched (one
 * store call per distinct second) and sent by a timer that does not keep the
 * process alive, or by `flush()`.
 *
 * Guarantees: the request never waits for a write; a failed or slow write never
 * fails or allows a request (it is counted and dropped); the queue and the
 * per-token memory are bounded, and a full queue drops rather than grows.
 * @module
 */
import type { TokenStore, TokenUse } from '../../stores';

/**
 * Counters of a {@link LastUsedRecorder}, for tests and health pages.
 *
 * @example
 * ```ts
 * recorder.stats; // { written: 12, dropped: 0, failed: 0, batches: 3 }
 * ```
 */
export interface LastUsedStats {
  /** Token ids handed to a write that succeeded. */
  written: number;
  /** Token uses not queued because the queue was full (the store is slow or down). */
  dropped: number;
  /** Token ids whose write failed or timed out. */
  failed: number;
  /** Store calls made. */
  batches: number;
}

/**
 * Options of {@link LastUsedRecorder}.
 *
 * @example
 * ```ts
 * const options: LastUsedOptions = { write: (uses, at) => store.recordUse(uses, at), intervalMs: 60_000 };
 * ```
 */
export interface LastUsedOptions {
  /** Persist a batch (one use per token); must reject on failure (the recorder counts it and moves on). */
  write: (uses: readonly TokenUse[], at: Date) => Promise<void>;
  /** At most one write per token per this many milliseconds. */
  intervalMs: number;
  /** Most token uses waiting for a write; beyond it uses are dropped. Default 10 000. */
  maxPending?: number;
  /** Most tokens whose last recorded time is remembered. Default 100 000. */
  maxTracked?: number;
  /** Delay between the first queued use and its write. Default 1 000 ms. */
  flushDelayMs?: number;
}

/** A queued use: when, from where. */
interface Pending {
  readonly at: number;
  readonly address: string | null;
  readonly userAgent: string | null;
}

/**
 * The bounded, throttled, batching recorder behind `lastUsedAt` and `usedFrom`. One per `Auth` instance.
 *
 * @example
 * ```ts
 * const recorder = new LastUsedRecorder({ write: (uses, at) => store.recordUse(uses, at), intervalMs: 60_000 });
 * recorder.seen('tok-1', Date.now(), '203.0.113.7', 'curl/8.5.0'); // queued
 * recorder.seen('tok-1', Date.now());                               // throttled: a Map lookup, nothing else
 * await recorder.flush();                                           // one store call
 * ```
 */
export class LastUsedRecorder {
  readonly stats: LastUsedStats = { written: 0, dropped: 0, failed: 0, batches: 0 };
  readonly #write: LastUsedOptions['write'];
  readonly #intervalMs: number;
  readonly #maxPending: number;
  readonly #maxTracked: number;
  readonly #flushDelayMs: number;
  /** Token id -> the use time last accepted for writing; Map order is oldest first. */
  readonly #last = new Map<string, number>();
  #pending = new Map<string, Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> | undefined;

  constructor(options: LastUsedOptions) {
    this.#write = options.write;
    this.#intervalMs = options.intervalMs;
    this.#maxPending = options.maxPending ?? 10_000;
    this.#maxTracked = options.maxTracked ?? 100_000;
    this.#flushDelayMs = options.flushDelayMs ?? 1_000;
  }

  /** Token uses waiting for a write. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * A token was accepted at `atMs`. Cheap when throttled: one Map lookup and a
   * subtraction, no allocation. A clock that steps back counts as "within the
   * interval", so it never causes extra writes.
   */
  seen(id: string, atMs: number, address: string | null = null, userAgent: string | null = null): void {
    if (this.due(id, atMs)) this.record(id, atMs, address, userAgent);
  }

  /**
   * Would a use of `id` at `atMs` be recorded? No side effect, no allocation:
   * the caller learns where the request came from only when it is.
   */
  due(id: string, atMs: number): boolean {
    const last = this.#last.get(id);
    return last === undefined || atMs - last >= this.#intervalMs;
  }

  /** Queue a use that {@link LastUsedRecorder.due} said is due. */
  record(id: string, atMs: number, address: string | null, userAgent: string | null): void {
    // Re-insert so that Map order stays oldest-recorded first; evict from the
    // front when full. Evicting an entry younger than the interval could allow
    // one early write for that token: the price of bounded memory, paid only
    // when more than maxTracked tokens are used within one interval.
    this.#last.delete(id);
    if (this.#last.size >= this.#maxTracked) this.#last.delete(this.#last.keys().next().value as string);
    this.#last.set(id, atMs);
    if (this.#pending.size >= this.#maxPending && !this.#pending.has(id)) {
      this.stats.dropped++;
      return;
    }
    this.#pending.set(id, { at: atMs, address, userAgent });
    this.#arm();
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#inFlight !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushDelayMs);
    // Recording must never keep a finished process alive.
    if (typeof this.#timer === 'object' && this.#timer !== null && 'unref' in this.#timer) this.#timer.unref();
  }

  /**
   * Write everything queued now, and resolve when it is written (or has failed:
   * this never rejects). Waits for a write already in flight first, so that at
   * most one batch is ever in flight.
   */
  async flush(): Promise<void> {
    while (this.#inFlight !== undefined) await this.#inFlight;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    this.#inFlight = this.#send(batch).finally(() => {
      this.#inFlight = undefined;
      if (this.#pending.size > 0) this.#arm();
    });
    await this.#inFlight;
  }

  async #send(batch: Map<string, Pending>): Promise<void> {
    // Record times are whole seconds, like every other date of a record; one
    // store call per distinct second (normally one or two per batch).
    const bySecond = new Map<number, TokenUse[]>();
    for (const [id, use] of batch) {
      const sec = Math.floor(use.at / 1000);
      const uses = bySecond.get(sec);
      const item: TokenUse = { id, address: use.address, userAgent: use.userAgent };
      if (uses === undefined) bySecond.set(sec, [item]);
      else uses.push(item);
    }
    for (const [sec, uses] of bySecond) {
      this.stats.batches++;
      try {
        await this.#write(uses, new Date(sec * 1000));
        this.stats.written += uses.length;
      } catch {
        // Last-used is advisory: a failed write is counted, never retried without
        // bound, and never reaches a request.
        this.stats.failed += uses.length;
      }
    }
  }
}

/**
 * @internal The recorder of one Auth instance over `store`, or `null` when
 * recording is off (`intervalMs` 0) or the store can record nothing. A store
 * with `recordUse` keeps where tokens were used from; one with `touch` alone,
 * when only. `call` runs the write under the store deadline.
 *
 * @example
 * ```ts
 * const recorder = recorderFor(store, 60_000, (what, fn) => guarded(fn, 5000, what));
 * ```
 */
export function recorderFor(
  store: TokenStore,
  intervalMs: number,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
): LastUsedRecorder | null {
  if (intervalMs <= 0) return null;
  const recordUse = typeof store.recordUse === 'function' ? store.recordUse.bind(store) : undefined;
  const touch = typeof store.touch === 'function' ? store.touch.bind(store) : undefined;
  let write: LastUsedOptions['write'];
  if (recordUse !== undefined) write = (uses, at) => call('token store', () => recordUse(uses, at));
  else if (touch !== undefined)
    write = (uses, at) =>
      call('token store', () =>
        touch(
          uses.map((u) => u.id),
          at,
        ),
      );
  else return null;
  return new LastUsedRecorder({ write, intervalMs });
}
