// Real engines for the distributed-mode tests (issue 24): Debian's PostgreSQL and Redis and the npm
// S3-compatible server s3rver, each started by the test run on a free loopback port in a temp dir and stopped
// with it. Nothing here is a fake: the adapters under test speak to the real servers over TCP.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A free TCP port on loopback (the kernel picks it; the race until the server binds it is accepted in tests). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what} did not start within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where Debian keeps the PostgreSQL server binaries (initdb and pg_ctl are not on PATH there). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  return ''; // on PATH elsewhere
}

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

/**
 * Starts a PostgreSQL server of its own: initdb into a temp dir (as the postgres user when the tests run as
 * root, since PostgreSQL refuses to run as root), then pg_ctl on a free loopback port with durability off.
 */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const exe = (name: string) => (bin ? path.join(bin, name) : name);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    if (asRoot) return execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' });
    return execFileSync(cmd, args, { stdio: 'pipe' });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  run(exe('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const ping = async () => {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.query('select 1');
      return true;
    } finally {
      await c.end().catch(() => {});
    }
  };
  const start = async () => {
    run(exe('pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']);
    await waitFor('PostgreSQL', ping);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    run(exe('pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
  };
  await start();
  let n = 0;
  return {
    url, port, start, stop,
    createDatabase: async (prefix = 'test') => {
      const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${++n}`;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`create database "${name}"`);
      } finally {
        await c.end();
      }
      return `postgresql://postgres@127.0.0.1:${port}/${name}`;
    },
    close: async () => {
      await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Redis {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** A URL to a database number of its own (0-15), so tests sharing a server do not see each other's keys. */
  database(n: number): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Starts Debian's redis-server on a free loopback port, in memory only (no RDB/AOF files). */
export async function startRedis(): Promise<Redis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const ping = () => new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('error', () => resolve(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => { s.destroy(); resolve(d.toString().startsWith('+PONG')); });
  });
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    await waitFor('Redis', ping);
  };
  const stop = async () => {
    if (!child) return;
    const c = child;
    child = undefined;
    c.kill('SIGKILL');
    await waitExit(c);
  };
  await start();
  const url = `redis://127.0.0.1:${port}`;
  return {
    url, port, start, stop,
    database: (n) => `${url}/${n}`,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface S3 {
  /** http://127.0.0.1:PORT — the value of SHORTS_S3_ENDPOINT. */
  endpoint: string;
  port: number;
  /** The credentials s3rver accepts (its documented defaults), as the AWS SDK reads them from the environment. */
  env: Record<string, string>;
  /** Makes a bucket; its name. */
  createBucket(name?: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts s3rver (an S3-compatible server from npm) on a free loopback port over a temp dir. */
export async function startS3(): Promise<S3> {
  const { default: S3rver } = await import('s3rver');
  const dir = mkdtempSync(path.join(os.tmpdir(), 's3-'));
  const port = await freePort();
  const server = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, resetOnClose: true });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
  let n = 0;
  return {
    endpoint, port, env,
    createBucket: async (name = `bucket-${process.pid}-${++n}`) => {
      const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
      const client = new S3Client({ endpoint, forcePathStyle: true, region: env.AWS_REGION, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY } });
      try {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      } finally {
        client.destroy();
      }
      return name;
    },
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
