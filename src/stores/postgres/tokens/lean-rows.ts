/**
 * @internal The lean read's statement, sent the short way (issue 33 goal 2).
 * `client.query(config)` costs a lone request more client CPU than the
 * statement itself: pg copies the config (property descriptors), builds a
 * Query (an EventEmitter and a Result), asks for a Describe, parses the row
 * description and builds a parser per column, on every call. Here the store's
 * named statement is a pg "submittable" (an object with `submit()`, pg's
 * extension point that pg-cursor uses): prepared once per connection as
 * pg's own named queries are (the same per-connection bookkeeping), then only
 * Bind, Execute and Sync. No Describe: the rows come back as text, in the
 * column order the statement fixes; the columns named as timestamps are parsed
 * with the client's own parser for `timestamptz` (so a pool's custom parser is
 * honoured as `client.query` would), the rest are text already (id, version,
 * governance version).
 *
 * Any client that is not pg's own (a wrapped or fake pool), a client in binary
 * or pipeline mode (pg refuses submittables there), or an unnamed statement
 * (`prepare: false`) takes the ordinary `client.query`.
 * @module
 */
import type { PoolClient } from 'pg';

/** @internal A read's query config (named when statements are prepared). */
export interface ReadQuery {
  name?: string;
  text: string;
  values: unknown[];
  /** `'array'`: rows as arrays of column values (no object per row; see `freshOf`). */
  rowMode?: 'array';
}

/** The parts of pg's (8.x) connection the short way uses. */
interface Wire {
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
  stream: { cork?: () => void; uncork?: () => void };
  parse(query: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[] }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail?(message: string): void;
}

type Rows = (readonly unknown[])[];

/** pg's connection under `client`, when the short way may use it. */
function wireOf(client: PoolClient): Wire | undefined {
  const c = client as unknown as { connection?: Partial<Wire> | null; binary?: unknown; pipeline?: unknown };
  const w = c.connection;
  if (c.binary === true || c.pipeline === true || typeof w !== 'object' || w === null) return undefined;
  const ok =
    typeof w.parsedStatements === 'object' &&
    w.parsedStatements !== null &&
    typeof w.submittedNamedStatements === 'object' &&
    w.submittedNamedStatements !== null &&
    typeof w.stream === 'object' &&
    w.stream !== null &&
    typeof w.parse === 'function' &&
    typeof w.bind === 'function' &&
    typeof w.execute === 'function' &&
    typeof w.sync === 'function';
  return ok ? (w as Wire) : undefined;
}

/**
 * One run of a named statement as a pg submittable: pg calls `submit` when the
 * connection is free, then the `handle*` methods as the answer arrives. It
 * answers through `callback` once, as pg's Query does (an error first, or the
 * rows at ReadyForQuery); pg may wrap `callback` (its `query_timeout`).
 */
class LeanRun {
  readonly rows: Rows = [];
  #done = false;

  constructor(
    readonly name: string,
    readonly text: string,
    readonly values: unknown[],
    public callback: (err: unknown, rows: Rows) => void,
  ) {}

  submit(wire: Wire): Error | null {
    const previous = wire.parsedStatements[this.name] ?? wire.submittedNamedStatements[this.name];
    if (previous !== undefined && previous !== this.text) return new Error(`svc-auth: statement ${this.name} was prepared with other text`);
    wire.stream.cork?.();
    try {
      if (previous === undefined) {
        wire.parse({ text: this.text, name: this.name, types: [] });
        wire.submittedNamedStatements[this.name] = this.text;
      }
      wire.bind({ portal: '', statement: this.name, values: this.values });
      wire.execute({ portal: '', rows: 0 });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  handleDataRow(msg: { fields: readonly unknown[] }): void {
    this.rows.push(msg.fields);
  }

  handleError(err: unknown): void {
    this.#answer(err);
  }

  handleReadyForQuery(): void {
    this.#answer(undefined);
  }

  handleCopyInResponse(wire: Wire): void {
    wire.sendCopyFail?.('svc-auth: no copy here');
  }

  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  #answer(err: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.callback(err, this.rows);
  }
}

/** PostgreSQL's type id of `timestamptz`. */
const TIMESTAMPTZ = 1184;

/**
 * @internal The rows of `query` as arrays (`rowMode: 'array'`), by the short way
 * when the client allows it: then every value is PostgreSQL's text of it, or `null`,
 * but for the columns at `timestamps` (`timestamptz`), parsed as `client.query` would.
 *
 * @example
 * ```ts
 * const rows = await leanRows(client, { name: 'svc_auth_version_1', text: sql.readVersion, values: [id] }, [2]);
 * ```
 */
export function leanRows(client: PoolClient, query: ReadQuery, timestamps: readonly number[] = []): Promise<Rows> {
  const wire = query.name === undefined ? undefined : wireOf(client);
  const parse = (client as { getTypeParser?: (oid: number, format: string) => unknown }).getTypeParser?.(TIMESTAMPTZ, 'text');
  if (query.name === undefined || wire === undefined || typeof parse !== 'function') {
    query.rowMode = 'array';
    return client.query(query).then((r) => r.rows as unknown as Rows);
  }
  const name = query.name;
  return new Promise<Rows>((resolve, reject) => {
    const toTime = parse as (text: unknown) => unknown;
    const run = new LeanRun(name, query.text, query.values, (err, rows) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's error as it is (the store wraps it)
      if (err !== undefined) return reject(err);
      try {
        for (const row of rows) for (const at of timestamps) if (row[at] !== null) (row as unknown[])[at] = toTime(row[at]);
      } catch (e) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a custom parser's throw as it is (the store wraps it)
        return reject(e);
      }
      resolve(rows);
    });
    const got: unknown = client.query(run as never);
    // A wrapped client may answer with a promise of its own: its rejection fails the read too.
    if (got !== run && typeof (got as { then?: unknown } | null)?.then === 'function') (got as Promise<unknown>).then(undefined, reject);
  });
}
