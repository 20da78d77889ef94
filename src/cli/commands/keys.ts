// `shorts keys create|list|revoke`: the operator's side of `shorts serve` accounts. Works on the local
// data directory's store directly (never through --remote): keys are issued by whoever runs the server.
import type { Command } from 'commander';
import { checkKeyPrefix, KEY_PREFIX, type AccountStore, type KeyInfo } from '../../service/accounts.js';
import { setting } from '../../settings.js';
import { CliError, EXIT } from '../cli-error.js';
import { note, printJson, printTable } from '../output.js';

export interface KeysCreateFlags {
  email: string;
  credits?: string;
  hourlyLimit?: string;
  dailyLimit?: string;
  /** undefined: not given (new accounts get a subscription; an existing one keeps its state). */
  subscription?: boolean;
  json?: boolean;
}

interface JsonFlag { json?: boolean }

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw new CliError(`${flag} must be a whole number, got "${value}"`, EXIT.usage);
  return Number(value.trim());
}

/** The prefix of the keys issued now (SHORTS_API_KEY_PREFIX), refused with the rule before anything is written. */
function keyPrefix(env: NodeJS.ProcessEnv): string {
  const prefix = setting('SHORTS_API_KEY_PREFIX', env) ?? KEY_PREFIX;
  try {
    return checkKeyPrefix(prefix, 'SHORTS_API_KEY_PREFIX');
  } catch (e) {
    throw new CliError(`${(e as Error).message} (e.g. sk_ssemble_)`, EXIT.usage);
  }
}

/**
 * Issues a key. A new email gets an account (with the given credits, limits and subscription); an
 * existing one gets another key, plus any credits given and any limit or subscription change asked for.
 * The key starts with SHORTS_API_KEY_PREFIX (default sk_live_); keys issued under another prefix stay valid.
 */
export async function keysCreateCommand(accounts: AccountStore, flags: KeysCreateFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const prefix = keyPrefix(env);
  const credits = wholeNumber('--credits', flags.credits);
  const hourlyLimit = wholeNumber('--hourly-limit', flags.hourlyLimit);
  const dailyLimit = wholeNumber('--daily-limit', flags.dailyLimit);
  let account = await accounts.findAccountByEmail(flags.email);
  const existed = account !== undefined;
  if (!account) {
    account = await accounts.createAccount({ email: flags.email, credits, hourlyLimit, dailyLimit, subscription: flags.subscription });
  } else {
    if (hourlyLimit !== undefined || dailyLimit !== undefined || flags.subscription !== undefined) {
      account = await accounts.updateAccount(account.id, { hourlyLimit, dailyLimit, subscription: flags.subscription });
    }
    if (credits !== undefined && credits > 0) account = await accounts.addCredits(account.id, credits);
  }
  const { key } = await accounts.createKey(account.id, prefix);
  // The account's webhook signing secret goes to stderr, so --json keeps the contract's exact shape.
  const secretLine = `webhook signing secret of this account (verify deliveries with it): ${account.webhookSecret}`;
  if (flags.json) {
    printJson({ key, accountId: account.id });
    note(secretLine);
    return EXIT.ok;
  }
  process.stdout.write(`${key}\n`);
  note(`${existed ? 'new key for existing' : 'created'} account ${account.id} (${account.email}): ${account.credits} credits, `
    + `${account.hourlyLimit}/hour, ${account.dailyLimit}/day, subscription ${account.subscriptionActive ? 'active' : 'inactive'}`);
  note('the key is shown only this once; store it now');
  note(secretLine);
  return EXIT.ok;
}

export async function keysListCommand(accounts: AccountStore, flags: JsonFlag): Promise<number> {
  const keys = await accounts.listKeys();
  if (flags.json) {
    printJson(keys);
    return EXIT.ok;
  }
  printTable(['prefix', 'email', 'created', 'revoked', 'last used'], keys.map((k) => [
    `${k.prefix}…`, k.email, k.createdAt, k.revokedAt ?? '', k.lastUsedAt ?? 'never',
  ]));
  return EXIT.ok;
}

export async function keysRevokeCommand(accounts: AccountStore, keyOrPrefix: string, flags: JsonFlag): Promise<number> {
  const k: KeyInfo = await accounts.revokeKey(keyOrPrefix);
  if (flags.json) printJson(k);
  else process.stdout.write(`revoked ${k.prefix}… (${k.email}) at ${k.revokedAt}\n`);
  return EXIT.ok;
}

export type OpenAccountStore = () => { accounts: AccountStore; close(): void | Promise<void> };

export function registerKeysCommand(program: Command, openStore: OpenAccountStore, setExit: (code: number) => void = () => {}): Command {
  const run = async (fn: (a: AccountStore) => Promise<number>) => {
    const store = openStore();
    try {
      setExit(await fn(store.accounts));
    } finally {
      await store.close();
    }
  };
  const keys = program.command('keys').description('issue, list and revoke API keys for `shorts serve`');
  keys.command('create').description('create an API key (and its account, for a new email); the key is printed once and starts with SHORTS_API_KEY_PREFIX (default sk_live_)')
    .requiredOption('--email <email>', 'account email')
    .option('--credits <n>', 'credits to grant (added to an existing account)')
    .option('--hourly-limit <n>', 'account requests per hour (1-2000, default 100)')
    .option('--daily-limit <n>', 'account requests per day (1-20000, default 1000)')
    .option('--no-subscription', 'account without an active subscription (cannot create or list posts)')
    .option('--json', 'print {"key", "accountId"}')
    .action(async (f: Omit<KeysCreateFlags, 'subscription'> & { subscription: boolean }, cmd: Command) => {
      // commander defaults a --no-* flag to true; only a flag actually given changes an existing account.
      const given = cmd.getOptionValueSource('subscription') === 'cli';
      await run((a) => keysCreateCommand(a, { ...f, subscription: given ? f.subscription : undefined }));
    });
  keys.command('list').description('list API keys (prefix only, never the key)').option('--json', 'JSON output')
    .action((f: JsonFlag) => run((a) => keysListCommand(a, f)));
  keys.command('revoke <keyOrPrefix>').description('revoke a key, given the whole key, its id or its listed prefix').option('--json', 'JSON output')
    .action((target: string, f: JsonFlag) => run((a) => keysRevokeCommand(a, target, f)));
  return keys;
}
