// API keys issued in this process on a data dir's store, the way `shorts keys create` does (AccountStore
// over the same SQLite file). Each `shorts keys create` child costs about 1.4 s of CPU, mostly Node loading
// the CLI; tests whose subject is not the keys command (test/keys-command.test.ts is) issue keys here.
import path from 'node:path';
import { SqliteRequestStore } from '../../src/adapters/sqlite/request-store.js';
import { AccountStore, type NewAccount } from '../../src/service/accounts.js';
import { SqliteAccounts } from '../../src/adapters/sqlite/accounts.js';

let n = 0;

/** A new account with one key on the store of `env`'s data dir; 5 credits and a subscription unless said. */
export async function issueKey(env: NodeJS.ProcessEnv, opts: Partial<NewAccount> = {}): Promise<{ key: string; accountId: string }> {
  const store = new SqliteRequestStore(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'));
  try {
    const accounts = new AccountStore(new SqliteAccounts(store.db));
    const email = opts.email ?? `user${process.pid}-${++n}-${Math.random().toString(36).slice(2)}@example.com`;
    const account = await accounts.createAccount({ credits: 5, ...opts, email });
    return { key: (await accounts.createKey(account.id)).key, accountId: account.id };
  } finally {
    store.close();
  }
}
