// The automation rules port over PostgreSQL's `automation_rules` table, with the rule's connected account
// joined in. Applying a request's rules is one transaction that first locks the API account's connected
// account rows (SELECT … FOR UPDATE, in id order): a second apply for the same account (another serve's
// start-up sweep, `shorts posts run`) waits there until the first commits, and under READ COMMITTED its next
// statements see the first one's posts. Deleting or expiring a connected account writes that row first, so it
// too waits for an apply under way and then cancels or fails the posts it made (SQLite got all of this from
// its one write lock). The unique index posts_automation_once stays the store's own guarantee underneath.
import type { Platform } from '../../publish/types.js';
import type { AutomationRuleRecord, AutomationRules, AutomationSnapshot, NewAutomationRule } from '../../ports/automation-rules.js';
import type { RequestStore } from '../../ports/request-store.js';
import { LOCAL_ACCOUNT, type NewPost, type PostRecord } from '../../ports/post-store.js';
import type { PgDatabase } from './database.js';
import { insertPost } from './post-store.js';

type RuleRow = {
  id: string; account_id: string; connected_account_id: string; min_viral_score: number; slots: string[]; timezone: string;
  enabled: boolean; created_at: string; platform: Platform; handle: string; status: 'active' | 'expired';
};

function toRule(r: RuleRow): AutomationRuleRecord {
  return {
    id: r.id, accountId: r.account_id, connectedAccountId: r.connected_account_id, platform: r.platform, handle: r.handle,
    connectedStatus: r.status, minViralScore: r.min_viral_score, slots: r.slots, timezone: r.timezone, enabled: r.enabled, createdAt: r.created_at,
  };
}

const RULES = `SELECT r.*, c.platform AS platform, c.handle AS handle, c.status AS status FROM automation_rules r
  JOIN connected_accounts c ON c.id = r.connected_account_id`;

export class PgAutomationRules implements AutomationRules {
  /** `requests`: the request store on the same database, read inside apply's transaction. */
  constructor(private readonly db: PgDatabase, private readonly requests: RequestStore) {}

  private async rows(where: string, params: unknown[]): Promise<AutomationRuleRecord[]> {
    return (await this.db.query<RuleRow>(`${RULES} WHERE ${where} ORDER BY r.created_at, r.id`, params)).map(toRule);
  }

  async list(accountId: string, connectedAccountId: string): Promise<AutomationRuleRecord[]> {
    return this.rows('r.connected_account_id = $1 AND r.account_id = $2', [connectedAccountId, accountId]);
  }

  async insert(r: NewAutomationRule): Promise<AutomationRuleRecord> {
    await this.db.query(`INSERT INTO automation_rules (id, account_id, connected_account_id, min_viral_score, slots, timezone, enabled, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, true, $7)`, [r.id, r.accountId, r.connectedAccountId, r.minViralScore, JSON.stringify(r.slots), r.timezone, r.createdAt]);
    return (await this.rows('r.id = $1', [r.id]))[0]!;
  }

  async remove(accountId: string, connectedAccountId: string, ruleId: string): Promise<AutomationRuleRecord | undefined> {
    const [rule] = await this.db.query<RuleRow>(`DELETE FROM automation_rules r USING connected_accounts c
      WHERE c.id = r.connected_account_id AND r.id = $1 AND r.connected_account_id = $2 AND r.account_id = $3
      RETURNING r.*, c.platform AS platform, c.handle AS handle, c.status AS status`, [ruleId, connectedAccountId, accountId]);
    return rule && toRule(rule);
  }

  async completedWithRules(scope: 'api' | 'local'): Promise<string[]> {
    const r = await this.db.query<{ id: string }>(`SELECT q.id FROM requests q WHERE q.status = 'completed' AND q.account_id ${scope === 'local' ? '=' : '<>'} $1
        AND EXISTS (SELECT 1 FROM automation_rules r WHERE r.account_id = q.account_id AND r.enabled AND r.created_at <= q.finished_at)
      ORDER BY q.finished_at, q.id`, [LOCAL_ACCOUNT]);
    return r.map((row) => row.id);
  }

  async apply(requestId: string, after: string, plan: (s: AutomationSnapshot) => NewPost[]): Promise<PostRecord[]> {
    return this.db.transaction(async () => {
      const request = await this.requests.getRequest(requestId);
      if (!request || request.status !== 'completed') return [];
      // The lock that makes this unit of work exclusive (see the top of this file), taken in one order by all.
      await this.db.query('SELECT 1 FROM connected_accounts WHERE account_id = $1 ORDER BY id FOR UPDATE', [request.accountId]);
      const rules = await this.rows('r.account_id = $1 AND r.enabled AND r.created_at <= $2', [request.accountId, request.finishedAt ?? request.updatedAt]);
      if (rules.length === 0) return [];
      const accounts = [...new Set(rules.map((r) => r.connectedAccountId))];
      const clips = await this.requests.listShorts(requestId);
      const posted = await this.db.query<{ ca: string; s: string }>(`SELECT connected_account_id AS ca, short_id AS s FROM posts
        WHERE source = 'automation' AND connected_account_id = ANY($1::text[])`, [accounts]);
      const taken = await this.db.query<{ ca: string; at: string }>(`SELECT connected_account_id AS ca, scheduled_at AS at FROM posts
        WHERE status IN ('scheduled', 'processing', 'published') AND scheduled_at > $1 AND connected_account_id = ANY($2::text[])`, [after, accounts]);
      const posts = plan({
        request, rules, clips,
        automationPosted: new Set(posted.map((p) => `${p.ca} ${p.s}`)),
        takenSlots: new Set(taken.map((p) => `${p.ca} ${p.at}`)),
      });
      const made: PostRecord[] = [];
      for (const p of posts) made.push(await insertPost(this.db, p));
      return made;
    });
  }
}
