// The Redis connection of SHORTS_REDIS_URL for the counters API processes share (rate limits), and its
// readiness check. The client connects on its first command, so a CLI command that never counts a request
// opens no connection; after a Redis restart ioredis reconnects by itself and commands issued meanwhile wait
// in its offline queue (a request is held for the restart, not failed).
import { Redis } from 'ioredis';

export function openRedis(url: string, log: (line: string) => void): Redis {
  const client = new Redis(url, { lazyConnect: true });
  // ioredis reports every failed reconnection attempt; one line per outage is enough (/readyz says the rest).
  let down = false;
  client.on('error', (e: Error) => {
    if (!down) log(`redis: ${e.message}; reconnecting`);
    down = true;
  });
  client.on('ready', () => {
    if (down) log('redis: connected again');
    down = false;
  });
  return client;
}

/** States in which the client is not connected and a command would wait for the reconnection. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/** For /readyz (its runner bounds the wait): fails at once while the connection is down, else PINGs. */
export async function pingRedis(client: Redis): Promise<string> {
  if (DOWN.has(client.status)) throw new Error(`not connected (${client.status})`);
  return `PING: ${await client.ping()}`;
}

/** Closes the connection (QUIT when it was opened; nothing to say to a server never reached). */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}
