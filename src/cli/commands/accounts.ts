// `shorts accounts [list] | connect PLATFORM | add PLATFORM | remove ID` (issue 16): the platform accounts
// posts go out as. Locally they live in the data directory's store; with --remote, in the API account of the key.
import { spawn } from 'node:child_process';
import { Option, type Command } from 'commander';
import { accountsClient, type ConnectedAccount } from '../../client/accounts-client.js';
import type { ShortsClient } from '../../client/shorts-client.js';
import { PLATFORMS, type Platform } from '../../publish/types.js';
import { CliError, EXIT } from '../cli-error.js';
import { note, printJson, printTable } from '../output.js';

interface JsonFlag { json?: boolean }
export interface AddFlags extends JsonFlag {
  handle: string; accessToken: string; refreshToken?: string; expiresIn?: string; refreshExpiresIn?: string; platformUserId?: string; scopes?: string;
}
export interface ConnectFlags extends JsonFlag { handle?: string; port?: string; timeout?: string; open?: boolean }

function platformArg(v: string): Platform {
  if (!(PLATFORMS as readonly string[]).includes(v)) throw new CliError(`PLATFORM must be one of ${PLATFORMS.join(', ')}, got "${v}"`, EXIT.usage);
  return v as Platform;
}

function seconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) < 1) throw new CliError(`${flag} must be a whole number of seconds, got "${v}"`, EXIT.usage);
  return Number(v.trim());
}

function printAccounts(accounts: ConnectedAccount[]): void {
  printTable(['id', 'platform', 'handle', 'status', 'token expires', 'connected'], accounts.map((a) => [
    a.id, a.platform, `@${a.handle}`, a.status, a.expiresAt ?? 'unknown', a.createdAt,
  ]));
}

export async function accountsListCommand(client: ShortsClient, flags: JsonFlag & { platform?: string }): Promise<number> {
  const accounts = await accountsClient(client).list(flags.platform === undefined ? undefined : platformArg(flags.platform));
  if (flags.json) {
    printJson({ data: { accounts } });
    return EXIT.ok;
  }
  if (accounts.length === 0) note('no connected accounts yet: `shorts accounts connect PLATFORM` (or `shorts accounts add PLATFORM` with tokens you have)');
  else printAccounts(accounts);
  return EXIT.ok;
}

/** Reads the tokens given as `-` from standard input, one a line (access token first), so they stay out of `ps` and shell history. */
async function tokensFromStdin(flags: AddFlags): Promise<{ accessToken: string; refreshToken?: string }> {
  const wanted = [flags.accessToken === '-', flags.refreshToken === '-'];
  if (!wanted.includes(true)) return { accessToken: flags.accessToken, refreshToken: flags.refreshToken };
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const need = wanted.filter(Boolean).length;
  if (lines.length < need) throw new CliError(`expected ${need} token line${need === 1 ? '' : 's'} on standard input, got ${lines.length}`, EXIT.usage);
  return { accessToken: wanted[0] ? lines.shift()! : flags.accessToken, refreshToken: wanted[1] ? lines.shift()! : flags.refreshToken };
}

export async function accountsAddCommand(client: ShortsClient, platform: string, flags: AddFlags): Promise<number> {
  const tokens = await tokensFromStdin(flags);
  const account = await accountsClient(client).add({
    platform: platformArg(platform), handle: flags.handle, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
    expiresIn: seconds('--expires-in', flags.expiresIn), refreshExpiresIn: seconds('--refresh-expires-in', flags.refreshExpiresIn),
    platformUserId: flags.platformUserId, scopes: flags.scopes?.split(/[\s,]+/).filter(Boolean),
  });
  return shown(account, flags, 'added');
}

function shown(account: ConnectedAccount, flags: JsonFlag, what: string): number {
  if (flags.json) printJson(account);
  else {
    process.stdout.write(`${account.id}\n`);
    note(`${what} ${account.platform} account @${account.handle}${account.expiresAt ? ` (token valid until ${account.expiresAt})` : ''}`);
  }
  return EXIT.ok;
}

/** Opens the consent page in the desktop's browser; a failure is fine: the URL is printed anyway. */
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? null : 'xdg-open';
  if (!command) return;
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener on this machine
  }
}

export async function accountsConnectCommand(client: ShortsClient, platform: string, flags: ConnectFlags): Promise<number> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new CliError(`--port must be a port number, got "${flags.port}"`, EXIT.usage);
  const timeout = seconds('--timeout', flags.timeout);
  if (port !== undefined && client.mode === 'remote') note('--port is ignored with --remote: the server catches the consent at its own address');
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const account = await accountsClient(client).connect(platformArg(platform), {
      handle: flags.handle, port, timeoutMs: timeout === undefined ? undefined : timeout * 1000, signal: controller.signal,
      onConsentUrl: (url, redirectUri) => {
        note(`open this page to let shortwright post as your ${platform} account (it comes back to ${redirectUri}):`);
        note(url);
        // Only a person at a terminal has a browser to open; scripts and tests read the URL above.
        if (flags.open !== false && process.stderr.isTTY) openBrowser(url);
        // The server saves the account only once its page gets this API account's key (issue 23).
        if (client.mode === 'remote') note('after you agree, the server\'s page asks for your API key (the one this command uses) to confirm the account is yours');
        note('waiting for the consent…');
      },
    });
    return shown(account, flags, 'connected');
  } catch (e) {
    // Ctrl-C while the consent page is open: nothing was saved.
    if (controller.signal.aborted) throw new CliError('interrupted: no account was connected', EXIT.interrupted);
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export async function accountsRemoveCommand(client: ShortsClient, id: string, flags: JsonFlag): Promise<number> {
  const r = await accountsClient(client).remove(id);
  if (flags.json) printJson(r);
  else {
    process.stdout.write(`account ${r.id} removed\n`);
    if (r.canceledPosts > 0) note(`${r.canceledPosts} scheduled post${r.canceledPosts === 1 ? '' : 's'} of it canceled`);
  }
  return EXIT.ok;
}

/** Registers `accounts` on the program; `withClient` is program.ts's (opens the local or remote client, closes it). */
export function registerAccountsCommand(program: Command, withClient: (fn: (c: ShortsClient) => Promise<number>) => () => Promise<void>): void {
  const accounts = program.command('accounts').description('the platform accounts clips are posted as: list, connect (OAuth consent), add (tokens you have), remove');
  const platformChoice = () => new Option('--platform <platform>', 'only accounts on this platform').choices([...PLATFORMS]);
  accounts.command('list', { isDefault: true }).description('list connected accounts (tokens are never shown)')
    .addOption(platformChoice()).option('--json', 'JSON output')
    .action((f: JsonFlag & { platform?: string }) => withClient((c) => accountsListCommand(c, f))());
  accounts.command('connect <platform>')
    .description(`connect an account through the platform's consent page (${PLATFORMS.join(', ')}); needs SHORTS_OAUTH_<PLATFORM>_CLIENT_ID and _SECRET where the consent is caught (here, or the --remote server)`)
    .option('--handle <handle>', 'save the account under this name instead of the one the platform gives')
    .option('--port <port>', 'local: the loopback port the consent comes back to (register http://127.0.0.1:<port>/callback with your OAuth app); default any free one')
    .option('--timeout <seconds>', 'give up when the consent is not completed within this time (default 600)')
    .option('--no-open', 'do not open a browser; only print the consent page\'s address')
    .option('--json', 'JSON output')
    .action((platform: string, f: ConnectFlags) => withClient((c) => accountsConnectCommand(c, platform, f))());
  accounts.command('add <platform>')
    .description('add an account with tokens obtained elsewhere (they are stored encrypted with SHORTS_SECRET_KEY)')
    .requiredOption('--handle <handle>', 'the account\'s name on the platform')
    .requiredOption('--access-token <token>', 'its access token; `-` reads it from standard input (keeps it out of the process list)')
    .option('--refresh-token <token>', 'its refresh token (without one, the account stops working when the access token expires); `-`: the next line of standard input')
    .option('--expires-in <seconds>', 'seconds the access token has left (refreshed 5 minutes before)')
    .option('--refresh-expires-in <seconds>', 'seconds the refresh token has left')
    .option('--platform-user-id <id>', 'the platform\'s id of the account (channel id, IG user id, open_id)')
    .option('--scopes <list>', 'the scopes granted, comma- or space-separated')
    .option('--json', 'JSON output')
    .action((platform: string, f: AddFlags) => withClient((c) => accountsAddCommand(c, platform, f))());
  accounts.command('remove <id>').description('remove a connected account (its scheduled posts are canceled)').option('--json', 'JSON output')
    .action((id: string, f: JsonFlag) => withClient((c) => accountsRemoveCommand(c, id, f))());
}
