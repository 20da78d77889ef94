// Which ShortsClient a command uses: --remote/--api-key, else SHORTS_REMOTE/SHORTS_API_KEY, else the
// saved settings, else the local engine.
import { LocalClient } from './local-client.js';
import { RemoteClient } from './remote-client.js';
import type { ShortsClient } from './shorts-client.js';
import { dataDir } from './data-dir.js';
import { openSettings } from '../cli/config.js';
import { CliError, EXIT } from '../cli/cli-error.js';
import { note } from '../cli/output.js';

export function makeClient(flags: { remote?: string; apiKey?: string }, env: NodeJS.ProcessEnv = process.env): ShortsClient {
  const saved = flags.remote || env.SHORTS_REMOTE ? {} : openSettings(env).store;
  const remote = flags.remote ?? env.SHORTS_REMOTE ?? saved.remote;
  if (!remote) return new LocalClient(dataDir(env), note);
  const apiKey = flags.apiKey ?? env.SHORTS_API_KEY ?? openSettings(env).get('apiKey');
  if (!apiKey) throw new CliError('an API key is needed for a remote instance (use --api-key, SHORTS_API_KEY or `shorts config set api-key KEY`)', EXIT.usage);
  const poll = env.SHORTS_POLL_INTERVAL_MS ? Number(env.SHORTS_POLL_INTERVAL_MS) : undefined;
  return new RemoteClient({ baseUrl: remote, apiKey, pollIntervalMs: poll });
}
