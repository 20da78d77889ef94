// One node-postgres Pool per process and the units of work of the PostgreSQL adapters. Every adapter built on
// one PgDatabase shares its transaction: a write made inside `transaction` (in the same async flow, however
// deep) runs on that transaction's connection. That is how AccountsPort.chargeAndCreate's charge and the
// request store's insert commit together, as the SQLite adapters do by sharing one connection.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { unavailableIfLost } from '../connection-lost.js';

/** A connection of a transaction, usable only until its COMMIT or ROLLBACK. */
interface Tx { client: pg.PoolClient; open: boolean; savepoints: number }

export type Row = Record<string, unknown>;

/** The server could not be reached or dropped the connection: the port's EngineUnavailable; anything else as it came. */
const classified = (e: unknown): unknown => unavailableIfLost('PostgreSQL', e);

/**
 * bigint (counts, millisecond clocks, identity columns) and numeric arrive as strings by default; every value
 * this schema keeps fits a JS number exactly, so this pool's connections parse them (per pool: BullMQ's own
 * pool on the same process keeps the driver's defaults).
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/** A Pool for a postgresql:// URL; `onError` hears about idle connections dropped by the server (a restart). */
export function createPool(url: string, onError: (e: Error) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, types: TYPES, connectionTimeoutMillis: 10_000 });
  // An idle client whose server went away emits 'error' on the pool: without a listener that would crash the
  // process. The pool drops that client and the next query connects again.
  pool.on('error', onError);
  return pool;
}

export class PgDatabase {
  private readonly tx = new AsyncLocalStorage<Tx>();
  private preparing: Promise<void> | null = null;

  /**
   * `prepare` (the schema migration) runs once before the first statement, so a process can build its
   * adapters synchronously at start; when it fails (the server is not up yet) the next statement tries again.
   */
  constructor(readonly pool: pg.Pool, private readonly prepare?: (pool: pg.Pool) => Promise<unknown>) {}

  /** Settles once `prepare` has run (rejects with its error, and forgets it so the next call retries). */
  ready(): Promise<void> {
    if (!this.prepare) return Promise.resolve();
    return (this.preparing ??= this.prepare(this.pool).then(() => undefined, (e: unknown) => {
      this.preparing = null;
      throw e;
    }));
  }

  /** The open transaction of this async flow, if any (a background task started inside one outlives it). */
  private current(): Tx | undefined {
    const t = this.tx.getStore();
    return t?.open ? t : undefined;
  }

  /** Runs one statement: in the current transaction when there is one, else on any pooled connection. */
  async query<R = Row>(text: string, params: unknown[] = []): Promise<R[]> {
    const t = this.current();
    try {
      if (!t) await this.ready();
      const runner = t?.client ?? this.pool;
      return (await runner.query(text, params)).rows as R[];
    } catch (e) {
      throw classified(e);
    }
  }

  async one<R = Row>(text: string, params: unknown[] = []): Promise<R | undefined> {
    return (await this.query<R>(text, params))[0];
  }

  /**
   * Runs `work` as one unit: COMMIT when it resolves, ROLLBACK (and rethrow) when it rejects. Nested inside
   * another transaction of this database it becomes a savepoint, so an inner failure undoes only its own writes.
   */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer) return this.savepoint(outer, work);
    let client: pg.PoolClient;
    try {
      await this.ready();
      client = await this.pool.connect();
    } catch (e) {
      throw classified(e);
    }
    const t: Tx = { client, open: true, savepoints: 0 };
    let broken: Error | undefined;
    // A checked-out client has no error listener of the Pool's: a server gone while this transaction waits
    // between statements (on `work`'s own awaits) would otherwise be an unhandled 'error' that ends the
    // process. The next statement fails with it instead, and the connection is discarded.
    const lost = (e: Error) => { broken = e; };
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      const result = await this.tx.run(t, work);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch((err: Error) => { broken = err; });
      throw classified(e);
    } finally {
      t.open = false;
      client.removeListener('error', lost);
      // A connection that broke, or could not even roll back, is discarded, not reused.
      client.release(broken);
    }
  }

  private async savepoint<T>(t: Tx, work: () => Promise<T>): Promise<T> {
    const name = `sp_${++t.savepoints}`;
    await t.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await work();
      await t.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (e) {
      await t.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw e;
    }
  }

  /** Readiness: the server answers, with its version. */
  async ping(): Promise<string> {
    const row = await this.one<{ v: string }>(`SELECT current_setting('server_version') AS v`);
    return `postgresql ${row?.v ?? ''} ok`.replace('  ', ' ');
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Milliseconds since the epoch on the database server's clock, read when the statement runs. */
export const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
