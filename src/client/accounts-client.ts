// Connected platform accounts through either client (issue 16): locally over the store (and the consent
// caught on a loopback port of this machine), remotely over `/api/v1/accounts` of a `shorts serve` (whose own
// callback catches the consent; we watch the account list for it to arrive).
import { ShortsError } from '../errors.js';
import { oauthApp, oauthAppSettings } from '../publish/oauth-endpoints.js';
import type { Platform } from '../publish/types.js';
import { ConnectedAccounts, grantInput, parseAddAccountInput, type ConnectedAccount } from '../posts/connected-accounts.js';
import { CONSENT_TIMEOUT_MS, connectWithLoopback } from '../posts/oauth-flow.js';
import { sleep } from '../publish/http.js';
import { LocalClient } from './local-client.js';
import type { RemoteClient } from './remote-client.js';
import type { ShortsClient } from './shorts-client.js';

export type { ConnectedAccount };

/** POST /accounts: tokens obtained elsewhere (the API's names; expiresIn in seconds). */
export interface AddAccountBody {
  platform: Platform;
  handle: string;
  accessToken: string;
  refreshToken?: string;
  expiresIn?: number;
  refreshExpiresIn?: number;
  platformUserId?: string;
  scopes?: string[];
}

export interface RemovedAccount { id: string; deleted: true; canceledPosts: number }

export interface ConnectOptions {
  /** Save the account under this handle instead of the platform's own name for it. */
  handle?: string;
  /** Local: the loopback catcher's port (0: any free one). */
  port?: number;
  timeoutMs?: number;
  /** Remote: how often the account list is read while the consent is open (default 2 s, or the client's poll interval when shorter). */
  pollIntervalMs?: number;
  /** Receives the consent page's URL to show (and open); `redirectUri` is where it will come back. */
  onConsentUrl: (url: string, redirectUri: string) => void;
  signal?: AbortSignal;
}

export interface AccountsClient {
  list(platform?: Platform): Promise<ConnectedAccount[]>;
  get(id: string): Promise<ConnectedAccount>;
  add(body: AddAccountBody): Promise<ConnectedAccount>;
  remove(id: string): Promise<RemovedAccount>;
  /** The whole OAuth consent: resolves with the account once the platform has granted access. */
  connect(platform: Platform, opts: ConnectOptions): Promise<ConnectedAccount>;
}

class LocalAccounts implements AccountsClient {
  private readonly accounts: ConnectedAccounts;
  constructor(private readonly client: LocalClient, private readonly env: NodeJS.ProcessEnv) {
    this.accounts = client.engine.connectedAccounts;
  }
  private get owner(): string { return this.client.account.id; }

  async list(platform?: Platform) { return this.accounts.list(this.owner, platform); }
  async get(id: string) {
    const found = await this.accounts.get(this.owner, id);
    if (!found) throw new ShortsError('resource_not_found', `no connected account ${id}`);
    return found;
  }
  async add(body: AddAccountBody) { return this.accounts.addChecked(this.owner, parseAddAccountInput(body)); }
  async remove(id: string): Promise<RemovedAccount> {
    const removed = await this.accounts.remove(this.owner, id);
    if (!removed) throw new ShortsError('resource_not_found', `no connected account ${id}`);
    return { id, deleted: true, canceledPosts: removed.canceledPosts };
  }
  async connect(platform: Platform, opts: ConnectOptions) {
    const app = oauthApp(platform, this.env);
    if (!app) {
      throw new ShortsError('invalid_request', `connecting a ${platform} account needs your OAuth app on ${platform}: set ${oauthAppSettings(platform).join(' and ')} `
        + `(or add tokens you already have with \`shorts accounts add ${platform}\`)`, { parameter: 'platform' });
    }
    const grant = await connectWithLoopback({
      platform, app, env: this.env, port: opts.port, handle: opts.handle, timeoutMs: opts.timeoutMs, onConsentUrl: opts.onConsentUrl, signal: opts.signal,
    });
    return this.accounts.add(this.owner, grantInput(platform, grant));
  }
}

class RemoteAccounts implements AccountsClient {
  constructor(private readonly client: RemoteClient) {}

  async list(platform?: Platform) {
    return (await this.client.call<{ accounts: ConnectedAccount[] }>('GET', 'accounts', { query: { platform } })).accounts;
  }
  get(id: string) { return this.client.call<ConnectedAccount>('GET', `accounts/${encodeURIComponent(id)}`); }
  add(body: AddAccountBody) { return this.client.call<ConnectedAccount>('POST', 'accounts', { json: body }); }
  remove(id: string) { return this.client.call<RemovedAccount>('DELETE', `accounts/${encodeURIComponent(id)}`); }

  /**
   * The server runs the consent (its redirect URI is its own): we show its consent URL, then read the
   * account list until an account of that platform is new or was updated after we started.
   */
  async connect(platform: Platform, opts: ConnectOptions) {
    const before = new Map((await this.list(platform)).map((a) => [a.id, a.updatedAt]));
    const start = await this.client.call<{ authorizationUrl: string; redirectUri: string; expiresAt: string }>('POST', 'accounts/connect', {
      json: { platform, ...(opts.handle ? { handle: opts.handle } : {}) },
    });
    opts.onConsentUrl(start.authorizationUrl, start.redirectUri);
    const started = Date.now();
    const deadline = Math.min(Date.parse(start.expiresAt), started + (opts.timeoutMs ?? CONSENT_TIMEOUT_MS));
    for (;;) {
      await sleep(opts.pollIntervalMs ?? Math.min(this.client.pollIntervalMs, 2000), opts.signal);
      const changed = (await this.list(platform)).find((a) => before.get(a.id) !== a.updatedAt);
      if (changed) return changed;
      if (Date.now() > deadline) {
        throw new Error(`no ${platform} account was connected within ${Math.round((Date.now() - started) / 1000)} s: the consent page was not completed, or the platform refused (the browser tab says why)`);
      }
    }
  }
}

/** The connected accounts of whoever `client` acts for: the local user, or the remote API key's account. */
export function accountsClient(client: ShortsClient, env: NodeJS.ProcessEnv = process.env): AccountsClient {
  return client instanceof LocalClient ? new LocalAccounts(client, env) : new RemoteAccounts(client as RemoteClient);
}
