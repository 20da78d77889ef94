// The automation rules port (issue 22): the rules of issue 16 ("post every new clip with viral_score >= N at
// the next free slot of a daily schedule") as stored, and the one unit of work that applies them to a
// completed request. Today's adapter is src/adapters/sqlite/automation-rules.ts;
// test/conformance/automation-rules.ts says what any adapter must do.
import type { Platform } from '../domain/post.js';
import type { NewPost, PostRecord } from './post-store.js';
import type { RequestRecord, ShortRecord } from './request-store.js';

export interface AutomationRuleRecord {
  id: string;
  /** The API account. */
  accountId: string;
  connectedAccountId: string;
  /** Of the connected account, as it is now. */
  platform: Platform;
  handle: string;
  connectedStatus: 'active' | 'expired';
  minViralScore: number;
  /** "HH:MM", sorted. */
  slots: string[];
  timezone: string;
  enabled: boolean;
  createdAt: string;
}

export type NewAutomationRule = Pick<AutomationRuleRecord, 'id' | 'accountId' | 'connectedAccountId' | 'minViralScore' | 'slots' | 'timezone' | 'createdAt'>;

/** What the rules of one completed request are applied to: read and written in one unit of work. */
export interface AutomationSnapshot {
  request: RequestRecord;
  /** Enabled rules of the request's API account created no later than it finished, oldest first. */
  rules: AutomationRuleRecord[];
  /** The request's clips (all of them, in rank order). */
  clips: ShortRecord[];
  /** `${connectedAccountId} ${shortId}` of every automation post (any status) of the rules' connected accounts. */
  automationPosted: Set<string>;
  /** `${connectedAccountId} ${scheduledAt}` of the posts (scheduled, processing, published) of those accounts after `after`. */
  takenSlots: Set<string>;
}

export interface AutomationRules {
  /** Rules of one connected account of an API account, oldest first. */
  list(accountId: string, connectedAccountId: string): Promise<AutomationRuleRecord[]>;
  /** Stores an enabled rule (its connected account exists and is the API account's). */
  insert(rule: NewAutomationRule): Promise<AutomationRuleRecord>;
  /** Deletes a rule of this connected account and API account; the rule as it was, or undefined when there was none. */
  remove(accountId: string, connectedAccountId: string, ruleId: string): Promise<AutomationRuleRecord | undefined>;
  /**
   * Completed requests of a scope (`local`: the local account's; `api`: every other) that have an enabled rule
   * created no later than they finished, oldest finish first (the start-up sweep).
   */
  completedWithRules(scope: 'api' | 'local'): Promise<string[]>;
  /**
   * Applies the rules to a completed request atomically: reads the snapshot (slots taken after `after`), lets
   * `plan` (pure, synchronous) choose the posts, and inserts them as `scheduled`, in one unit of work that
   * excludes any other apply of the same account's rules, so two processes applying one request at once never
   * post a clip twice: the second sees the first one's posts. Nothing is read or written for a request that is
   * not completed (an empty list).
   */
  apply(requestId: string, after: string, plan: (s: AutomationSnapshot) => NewPost[]): Promise<PostRecord[]>;
}
