// Posts as a client sees them (issue 16): schedule, cancel, read one, and the automation rules of a
// connected account, over the local store (LocalClient) or a remote `shorts serve` (RemoteClient.call).
// Listing stays ShortsClient.posts (spec 4.6).
import type { ShortsClient } from './shorts-client.js';
import { LocalClient } from './local-client.js';
import type { RemoteClient } from './remote-client.js';
import type { PostObject } from '../api/types.js';
import { PostsService, type ScheduleBody } from '../posts/posts-service.js';
import { Automation, type AutomationRule } from '../posts/automation.js';

export type { AutomationRule, ScheduleBody };

/** POST /accounts/:id/automation. */
export interface AutomationBody { minViralScore: number; slots: string[]; timezone?: string }

export interface PostsClient {
  schedule(body: ScheduleBody): Promise<PostObject>;
  cancel(id: string): Promise<PostObject>;
  get(id: string): Promise<PostObject>;
  automationList(accountId: string): Promise<AutomationRule[]>;
  automationAdd(accountId: string, body: AutomationBody): Promise<AutomationRule>;
  automationRemove(accountId: string, ruleId: string): Promise<AutomationRule>;
}

class LocalPostsClient implements PostsClient {
  private readonly service: PostsService;
  private readonly automation: Automation;

  constructor(private readonly local: LocalClient) {
    this.service = local.engine.posts;
    this.automation = local.engine.automation;
  }

  async schedule(body: ScheduleBody) { return this.service.schedule(this.local.account, body); }
  async cancel(id: string) { return this.service.cancel(this.local.account, id); }
  async get(id: string) { return this.service.get(this.local.account, id); }
  async automationList(accountId: string) { return this.automation.list(this.local.account.id, accountId); }
  async automationAdd(accountId: string, body: AutomationBody) { return this.automation.add(this.local.account.id, accountId, body); }
  async automationRemove(accountId: string, ruleId: string) { return this.automation.remove(this.local.account.id, accountId, ruleId); }
}

class RemotePostsClient implements PostsClient {
  constructor(private readonly remote: RemoteClient) {}

  schedule(body: ScheduleBody) { return this.remote.call<PostObject>('POST', 'posts', { json: body }); }
  cancel(id: string) { return this.remote.call<PostObject>('DELETE', `posts/${encodeURIComponent(id)}`); }
  get(id: string) { return this.remote.call<PostObject>('GET', `posts/${encodeURIComponent(id)}`); }
  async automationList(accountId: string) {
    return (await this.remote.call<{ rules: AutomationRule[] }>('GET', `accounts/${encodeURIComponent(accountId)}/automation`)).rules;
  }
  automationAdd(accountId: string, body: AutomationBody) {
    return this.remote.call<AutomationRule>('POST', `accounts/${encodeURIComponent(accountId)}/automation`, { json: body });
  }
  automationRemove(accountId: string, ruleId: string) {
    return this.remote.call<AutomationRule>('DELETE', `accounts/${encodeURIComponent(accountId)}/automation/${encodeURIComponent(ruleId)}`);
  }
}

export function postsClient(client: ShortsClient): PostsClient {
  return client instanceof LocalClient ? new LocalPostsClient(client) : new RemotePostsClient(client as RemoteClient);
}
