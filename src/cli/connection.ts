// makeClient: which ShortsClient a CLI command uses. Each of the remote URL and the API key comes from the first of:
// the --remote/--api-key flags, SHORTS_REMOTE/SHORTS_API_KEY, the saved settings; with no remote at
// all, the local engine. A saved key belongs to the saved remote: it is not sent to another server
// named by a flag or the environment.
import { createClient } from '../client/client-factory.js';
import { dataDir } from '../client/data-dir.js';
import { apiBaseUrl } from '../client/remote-client.js';
import type { ShortsClient } from '../client/shorts-client.js';
import { Settings, type SavedSettings } from './config.js';
import { CliError, EXIT } from './cli-error.js';
import { note, progress } from './output.js';
import { setting } from '../settings.js';

export interface ConnectionFlags { remote?: string; apiKey?: string }

export type Connection =
  | { mode: 'local' }
  | { mode: 'remote'; baseUrl: string; apiKey: string; from: 'flag' | 'env' | 'config' };

const MISSING_KEY = 'an API key is needed for --remote (use --api-key, SHORTS_API_KEY or `shorts config set api-key`)';

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

function sameServer(a: string, b: string): boolean {
  try {
    return apiBaseUrl(a) === apiBaseUrl(b);
  } catch {
    return false;
  }
}

/** The precedence rules alone, without opening anything: flags > env > saved settings > local. */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, saved: SavedSettings): Connection {
  const fromFlag = nonEmpty(flags.remote);
  const fromEnv = setting('SHORTS_REMOTE', env);
  const savedRemote = nonEmpty(saved.remote);
  const remote = fromFlag ?? fromEnv ?? savedRemote;
  if (!remote) return { mode: 'local' };
  let baseUrl: string;
  try {
    baseUrl = apiBaseUrl(remote);
  } catch (e) {
    throw new CliError(`--remote: ${(e as Error).message}`, EXIT.usage);
  }
  const savedKey = nonEmpty(saved.apiKey);
  const savedKeyFits = savedKey !== undefined && (savedRemote === undefined || sameServer(savedRemote, remote));
  const apiKey = nonEmpty(flags.apiKey) ?? setting('SHORTS_API_KEY', env) ?? (savedKeyFits ? savedKey : undefined);
  if (!apiKey) throw new CliError(MISSING_KEY, EXIT.usage);
  return { mode: 'remote', baseUrl, apiKey, from: fromFlag ? 'flag' : fromEnv ? 'env' : 'config' };
}

/** Poll interval override for tests and impatient scripts (the spec recommends 10 s). */
function pollIntervalFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = setting('SHORTS_POLL_INTERVAL_MS', env);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`SHORTS_POLL_INTERVAL_MS must be a whole number of milliseconds, got "${raw}"`, EXIT.usage);
  return n;
}

export function makeClient(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): ShortsClient {
  // The settings file is only read when neither a flag nor the environment settles both values.
  const settled = (nonEmpty(flags.remote) ?? setting('SHORTS_REMOTE', env)) && (nonEmpty(flags.apiKey) ?? setting('SHORTS_API_KEY', env));
  const saved = settled ? {} : new Settings(env).all();
  const connection = resolveConnection(flags, env, saved);
  if (connection.mode === 'local') return createClient({ dataDir: dataDir(env), log: progress });
  return createClient({ baseUrl: connection.baseUrl, apiKey: connection.apiKey, pollIntervalMs: pollIntervalFromEnv(env), log: note });
}
