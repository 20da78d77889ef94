// Hearing, in every process, that a job of a queue it takes from became due — from BullMQ's own signals, not
// a pub/sub of ours — so that a job another process enqueued is taken at once instead of at the next poll
// (each stage hand-off of a request crosses processes in distributed mode). One connection per process for
// all its queues, opened on the first take (API processes that never take open none):
// - Redis: BullMQ writes every job's moves to the queue's event stream (the one its QueueEvents reads):
//   `waiting` when a job is added, released by its last child, retried or handed back, `delayed` with the
//   time it is due. One XREAD blocks on the streams of all the queues at once (QueueEvents would hold one
//   connection per queue); it is non-destructive, so every process serving a queue hears it (BullMQ's
//   worker marker is popped by one waiter only). A delayed job wakes the queue at its due time.
// - PostgreSQL: BullMQ's functions NOTIFY `bullmq_jobs` with the queue's name whenever a job becomes
//   waiting (its own workers LISTEN there); one LISTEN session, held by BullMQ's PostgresConnection (which
//   rebuilds it when it drops) on a slot of the adapter's pool. Once it listens (at first, and again after a
//   drop) its queues are woken once for what was not announced to it. Delayed jobs are not announced when due.
// What no signal announces (a lock running out, a delayed job on PostgreSQL) the taker's poll still finds.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { PostgresConnection } from 'bullmq';

export interface DueSignals {
  /**
   * Starts hearing the jobs of this queue, in the background; called before the first take looks at the queue,
   * so that a job made due after that look is heard, however long the signal's connection takes to open.
   */
  watch(queue: string): void;
  close(): Promise<void>;
}

type Due = (queue: string) => void;
type OnError = (err: Error) => void;

/** After a failed read or listen, the wait before the next try (the server is restarting). */
const RETRY_MS = 1000;
/** The longest XREAD blocks: a bound on how long a stuck read goes unnoticed. */
const BLOCK_MS = 10_000;
/** Delayed jobs due further out than this are left to the poll (and a timer that long would be wasted). */
const TIMER_HORIZON_MS = 60_000;

/** BullMQ on Redis: the queues' event streams, read by one XREAD on a connection of its own. */
export function redisDueSignals(main: Redis, eventsKey: (queue: string) => string, due: Due, onError: OnError): DueSignals {
  // Stream key -> [queue, last id read]. Entries only grow (a process serves a few queues).
  const streams = new Map<string, [string, string]>();
  const timers = new Set<NodeJS.Timeout>();
  let reader: Redis | undefined;
  let reading: Promise<void> | undefined;
  let closed = false;
  /** Bumped by each new stream; `readVersion` is the one the XREAD in flight was issued with. */
  let version = 0, readVersion = 0;
  let readerId: number | undefined;
  let failing = false;
  const stop = new AbortController();

  const dueAt = (queue: string, at: number) => {
    const ms = at - Date.now();
    if (ms > TIMER_HORIZON_MS) return;
    const timer = setTimeout(() => { timers.delete(timer); due(queue); }, Math.max(0, ms));
    timer.unref();
    timers.add(timer);
  };

  const read = async (conn: Redis) => {
    while (!closed) {
      try {
        // Its id for CLIENT UNBLOCK (it changes when the connection is rebuilt).
        readerId = Number(await conn.client('ID'));
        readVersion = version;
        const keys = [...streams.keys()];
        const got = await conn.xread('BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...keys.map((k) => streams.get(k)![1]));
        const woken = new Set<string>();
        for (const [key, entries] of got ?? []) {
          const entry = streams.get(key)!;
          for (const [id, fields] of entries) {
            entry[1] = id;
            const event = field(fields, 'event');
            if (event === 'waiting') woken.add(entry[0]);
            else if (event === 'delayed') dueAt(entry[0], Number(field(fields, 'delay')));
          }
        }
        for (const queue of woken) due(queue);
        failing = false;
      } catch (err) {
        if (closed) return;
        if (!failing) onError(err as Error); // once per outage
        failing = true;
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => {});
      }
    }
  };

  /** Makes the XREAD in flight return so that the next one reads the new stream too. */
  const restartRead = async (wanted: number) => {
    // CLIENT UNBLOCK misses a read not yet blocking (0): the next one is then issued with the new stream.
    for (let i = 0; i < 50 && !closed && readVersion < wanted; i++) {
      if (readerId !== undefined && Number(await main.client('UNBLOCK', readerId)) === 1) return;
      await sleep(2);
    }
  };

  /**
   * Reads the queue's stream from its newest event on: what came before, the first take is about to look at
   * (this XREVRANGE goes on the adapter's connection ahead of that take's commands).
   */
  const watch = async (key: string, queue: string) => {
    let from: string;
    try {
      const last = await main.xrevrange(key, '+', '-', 'COUNT', 1);
      from = last[0]?.[0] ?? '0-0';
    } catch (err) {
      if (closed) return;
      onError(err as Error);
      from = `${Date.now()}-0`;
    }
    if (closed) return;
    streams.set(key, [queue, from]);
    const wanted = ++version;
    if (reader) return restartRead(wanted);
    // Its own options: a read in flight when the connection drops fails at once (instead of being sent again
    // after the reconnect and left waiting), and the loop reads again after RETRY_MS.
    reader = main.duplicate({ maxRetriesPerRequest: 0 });
    reader.on('error', onError);
    reading = read(reader);
  };

  const watching = new Set<string>();
  return {
    watch(queue) {
      const key = eventsKey(queue);
      if (closed || watching.has(key)) return;
      watching.add(key);
      watch(key, queue).catch((err: Error) => { if (!closed) onError(err); });
    },
    async close() {
      closed = true;
      stop.abort();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      reader?.disconnect();
      await reading;
    },
  };
}

/** BullMQ on PostgreSQL: LISTEN on the channel its functions NOTIFY, through BullMQ's PostgresConnection. */
export function postgresDueSignals(pool: pg.Pool, due: Due, onError: OnError): DueSignals {
  const queues = new Set<string>();
  const connection = new PostgresConnection(pool as never);
  connection.on('error', onError);
  const stop = new AbortController();
  let listening: Promise<void> | undefined;
  let started = false, closed = false, dropped = false, failing = false;

  const onNotify = (msg: { channel: string; payload?: string }) => {
    if (msg.channel === 'bullmq_jobs' && msg.payload !== undefined && queues.has(msg.payload)) due(msg.payload);
  };

  // Until it listens, or the adapter closes.
  const listen = async () => {
    while (!closed) {
      try {
        const client = await connection.getListenClient();
        if (closed) return; // close() releases it
        client.removeListener('notification', onNotify);
        client.on('notification', onNotify);
        await client.query('LISTEN bullmq_jobs');
        // What became due before it listened (since a first take looked, or while the server restarted) was not
        // announced to it: a take looks now (BullMQ's own waitForJob checks likewise once it listens).
        for (const queue of queues) due(queue);
        failing = false;
        return;
      } catch (err) {
        if (closed) return;
        if (!failing) onError(err as Error); // once per outage
        failing = true;
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => {});
      }
    }
  };
  const start = () => {
    started = true;
    dropped = false;
    // After the take that asked for it has had the pool's idle connection (the session takes a pool slot).
    listening = new Promise((r) => setImmediate(r)).then(listen).finally(() => {
      listening = undefined;
      if (dropped && !closed) start();
    });
  };

  // The session dropped (a restart): BullMQ has let it go; listen on a fresh one.
  connection.on('listenerinvalidated', () => {
    if (listening) dropped = true; // maybe on the session that just dropped: again once this try ends
    else if (!closed) start();
  });

  return {
    watch(queue) {
      queues.add(queue);
      if (!started) start();
    },
    async close() {
      closed = true;
      stop.abort();
      await listening;
      await connection.close();
    },
  };
}

/** A field of a stream entry (XREAD gives them as a flat [name, value, ...] list). */
function field(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
