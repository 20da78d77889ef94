// Real engines for distributed mode (issue 24), started on demand by the tests (test/helpers/engines.ts gives
// them types) and by the benchmarks: Debian's PostgreSQL and Redis and the npm S3-compatible server s3rver,
// each on a free loopback port in a temp dir, stopped with the run. Nothing here is a fake: adapters speak to
// the real servers over TCP.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';

/** A free TCP port on loopback (the kernel picks it; the race until the server binds it is accepted). */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(what, ready, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what} did not start within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where Debian keeps the PostgreSQL server binaries (initdb and pg_ctl are not on PATH there). */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  return ''; // on PATH elsewhere
}

/**
 * Starts a PostgreSQL server of its own: initdb into a temp dir (as the postgres user when run as root, since
 * PostgreSQL refuses to run as root), then pg_ctl on a free loopback port with durability off.
 */
export async function startPostgres() {
  const bin = postgresBin();
  const exe = (name) => (bin ? path.join(bin, name) : name);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd, args) => (asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' })
    : execFileSync(cmd, args, { stdio: 'pipe' }));
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
  const stop = async (mode = 'fast') => {
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

function waitExit(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * Starts Debian's redis-server on a free loopback port: in memory only (no RDB/AOF files), or with `persistent`
 * as a deployment runs it for BullMQ (an append-only file in its temp dir, fsynced every second, and no eviction:
 * `maxmemory-policy noeviction`), so a restart finds its queues again.
 */
export async function startRedis({ persistent = false } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-'));
  const port = await freePort();
  let child;
  const ping = () => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('error', () => resolve(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => { s.destroy(); resolve(d.toString().startsWith('+PONG')); });
  });
  const durability = persistent
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction']
    : ['--appendonly', 'no'];
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...durability, '--dir', dir], { stdio: 'ignore' });
    await waitFor('Redis', ping);
  };
  // 'crash': SIGKILL (an in-memory server loses everything; a persistent one the last second at most);
  // 'shutdown': SIGTERM, as a service manager's restart does (a persistent server writes its AOF out first).
  const stop = async (mode = 'crash') => {
    if (!child) return;
    const c = child;
    child = undefined;
    c.kill(mode === 'shutdown' ? 'SIGTERM' : 'SIGKILL');
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

/**
 * Makes an s3rver (3.7) keep two promises of S3 its file store breaks, so adapters are tested against S3's
 * behaviour and not the stand-in's: an overwrite replaces the object whole (s3rver truncates the file a
 * running GET is still reading), and deleting many keys of one folder at once succeeds (its clean-up of
 * emptied folders races itself and answers 500 to DeleteObjects). Call before run().
 */
export function asS3Does(server) {
  const { store } = server;
  const deleteObject = store.deleteObject.bind(store);
  store.deleteObject = async (bucket, key) => {
    try {
      await deleteObject(bucket, key);
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
  };
  store.putObject = async (object) => {
    const file = store.getResourcePath(object.bucket, object.key, 'object');
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const md5 = createHash('md5');
    let size = 0;
    const counted = new Transform({ transform(chunk, _enc, done) { md5.update(chunk); size += chunk.length; done(null, chunk); } });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    await pipeline(content, counted, createWriteStream(tmp));
    const digest = md5.digest('hex');
    renameSync(tmp, file);
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}

/** Starts s3rver (an S3-compatible server from npm) on a free loopback port over a temp dir. */
export async function startS3() {
  const { default: S3rver } = await import('s3rver');
  const dir = mkdtempSync(path.join(os.tmpdir(), 's3-'));
  const port = await freePort();
  const server = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, resetOnClose: true });
  asS3Does(server);
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // The credentials s3rver accepts (its documented defaults), as the AWS SDK reads them from the environment.
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
