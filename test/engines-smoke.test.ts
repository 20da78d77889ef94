// The real engines the distributed-mode tests start (test/helpers/engines.ts) come up and answer.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { startPostgres, startRedis, startS3 } from './helpers/engines.js';

describe('engines started by the tests', () => {
  it('PostgreSQL, Redis and s3rver start on loopback and answer', async () => {
    const [pgs, redis, s3] = await Promise.all([startPostgres(), startRedis(), startS3()]);
    try {
      const url = await pgs.createDatabase();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      expect((await c.query('select 1 as one')).rows[0].one).toBe(1);
      await c.end();
      const { Redis } = await import('ioredis');
      const r = new Redis(redis.database(3));
      await r.set('k', 'v');
      expect(await r.get('k')).toBe('v');
      r.disconnect();
      expect(await s3.createBucket('bucket-one')).toBe('bucket-one');
    } finally {
      await Promise.all([pgs.close(), redis.close(), s3.close()]);
    }
  });
});
