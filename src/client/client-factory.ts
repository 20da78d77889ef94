// createClient: the library's way to get a ShortsClient from explicit options (no flags, environment or
// saved settings are read; the CLI's choice of client is cli/connection.ts).
import { LocalClient } from './local-client.js';
import { RemoteClient, type RemoteClientOptions } from './remote-client.js';
import { dataDir } from './data-dir.js';
import { ShortsError } from '../errors.js';

/** A client of a `shorts serve` (or any instance of the Shorts API): its address and an API key. */
export type RemoteOptions = RemoteClientOptions;

/** The engine in this process, on a local data directory. */
export interface LocalOptions {
  /** Where the SQLite store, job folders and models live; default SHORTS_DATA_DIR, else the per-user folder. */
  dataDir?: string;
  /** Notes for a person (the first-use model download); default: dropped. */
  log?: (line: string) => void;
  baseUrl?: undefined;
}

export type CreateClientOptions = RemoteOptions | LocalOptions;

/**
 * A RemoteClient when `baseUrl` is given (with `apiKey`), otherwise a LocalClient. Nothing is read
 * from the environment but the default data directory; a remote address is validated here, so a typo
 * fails at once rather than at the first call.
 */
export function createClient(options: RemoteOptions): RemoteClient;
export function createClient(options?: LocalOptions): LocalClient;
export function createClient(options?: CreateClientOptions): LocalClient | RemoteClient;
export function createClient(options: CreateClientOptions = {}): LocalClient | RemoteClient {
  if (options.baseUrl !== undefined) {
    const remote = options as RemoteOptions;
    if (typeof remote.apiKey !== 'string' || remote.apiKey.trim() === '') {
      throw new ShortsError('missing_api_key', `an API key is needed for the remote ${remote.baseUrl}`);
    }
    return new RemoteClient({ ...remote, apiKey: remote.apiKey.trim() });
  }
  const local = options as LocalOptions;
  return new LocalClient(local.dataDir ?? dataDir(), local.log);
}
