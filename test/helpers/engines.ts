// Real engines for the distributed-mode tests (issue 24): PostgreSQL, Redis and s3rver started by the test run
// on free loopback ports (scripts/engines.mjs does it, for the benchmarks too); the types the tests see.
import * as engines from '../../scripts/engines.mjs';

export interface Postgres {
  /** postgresql://… of the server's `postgres` database. */
  url: string;
  port: number;
  /** A new empty database on this server; its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server (a fast shutdown, or immediate: connections see it die, as in a crash). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data (after stop). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface Redis {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** A URL to a database number of its own (0-15), so tests sharing a server do not see each other's keys. */
  database(n: number): string;
  /**
   * Stops the server: 'crash' (default) kills it (an in-memory server's data is gone; a persistent one loses the
   * last second at most); 'shutdown' ends it as a service manager does (a persistent one keeps everything).
   */
  stop(mode?: 'crash' | 'shutdown'): Promise<void>;
  /** Starts it again on the same port (a persistent one with its data). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface S3 {
  /** http://127.0.0.1:PORT — the value of SHORTS_S3_ENDPOINT. */
  endpoint: string;
  port: number;
  /** The credentials s3rver accepts, as the AWS SDK reads them from the environment. */
  env: Record<string, string>;
  /** Makes a bucket; its name. */
  createBucket(name?: string): Promise<string>;
  close(): Promise<void>;
}

export const freePort: () => Promise<number> = engines.freePort;
export const startPostgres: () => Promise<Postgres> = engines.startPostgres;
/** `persistent`: an append-only file and no eviction, as a deployment runs Redis for BullMQ (default: in memory only). */
export const startRedis: (opts?: { persistent?: boolean }) => Promise<Redis> = engines.startRedis;
export const startS3: () => Promise<S3> = engines.startS3;
/** Makes an s3rver made by a test keep S3's atomic overwrite and bulk delete (see scripts/engines.mjs); before run(). */
export const asS3Does: (server: unknown) => void = engines.asS3Does;
