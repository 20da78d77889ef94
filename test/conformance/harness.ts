// What every conformance suite is given: the adapter under test, a way to open a second instance of it on
// the same storage (another connection, another process's view), and how to throw both away.
import { afterEach } from 'vitest';

export interface Harness<P> {
  port: P;
  /** A second adapter instance (its own connection or client) on the same storage, closed by close(). */
  another(): Promise<P>;
  close(): Promise<void>;
}

/** Inside a describe: a fresh harness for each test that asks for one (with the factory's options), closed after it whatever happened. */
export function perTest<P, A extends unknown[] = []>(factory: (...args: A) => Promise<Harness<P>>): (...args: A) => Promise<Harness<P>> {
  let current: Harness<P> | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (...args: A) => (current = await factory(...args));
}
