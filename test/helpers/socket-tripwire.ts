// Records every TCP client socket the process opens and kills any that is about to connect anywhere but
// loopback. Tests of the URL guard use it to show that a refused URL is never contacted, and as a
// safety net: a broken guard must not send test traffic to a private or public address.
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

export interface Tripwire {
  /** Sockets opened since the last reset(). */
  readonly opened: number;
  /** Non-loopback addresses a socket tried to reach (and was destroyed for). */
  readonly refused: string[];
  reset(): void;
  dispose(): void;
}

const isLoopback = (address: string) => /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);

export function installTripwire(): Tripwire {
  let opened = 0;
  const refused: string[] = [];
  const guard = (socket: Socket, address: string | undefined) => {
    if (address && !isLoopback(address)) {
      refused.push(address);
      socket.destroy(new Error(`tripwire: connection to ${address} blocked in tests`));
    }
  };
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    opened++;
    // 'lookup' fires after name resolution and before connect; destroying there prevents the connect.
    socket.on('lookup', (_err: Error | null, address: string | undefined) => guard(socket, address));
    socket.on('connectionAttempt', (address: string) => guard(socket, address));
  };
  diagnostics.subscribe('net.client.socket', onSocket);
  return {
    get opened() { return opened; },
    refused,
    reset() { opened = 0; refused.length = 0; },
    dispose() { diagnostics.unsubscribe('net.client.socket', onSocket); },
  };
}
