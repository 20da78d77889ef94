// The automation rules port over the `automation_rules` table (store v7), with the rule's connected account
// joined in. Applying a request's rules is one IMMEDIATE transaction (the database's write lock): two
// processes applying rules at once (two serves' start-up sweeps, a serve and `shorts posts run`) run one after
// the other, and the second sees the first one's posts.
import type Database from 'better-sqlite3';
import type { Platform } from '../../publish/types.js';
import type { AutomationRuleRecord, AutomationRules, AutomationSnapshot, NewAutomationRule } from '../../ports/automation-rules.js';
import { LOCAL_ACCOUNT, type NewPost, type PostRecord } from '../../ports/post-store.js';
import { insertPost } from './post-store.js';
import { requestOfRow, shortOfRow, type RequestRow, type ShortRow } from './request-store.js';

interface RuleRow {
  id: string; account_id: string; connected_account_id: string; min_viral_score: number; slots: string; timezone: string;
  enabled: number; created_at: string; platform: Platform; handle: string; status: 'active' | 'expired';
}

function toRule(r: RuleRow): AutomationRuleRecord {
  return {
    id: r.id, accountId: r.account_id, connectedAccountId: r.connected_account_id, platform: r.platform, handle: r.handle,
    connectedStatus: r.status, minViralScore: r.min_viral_score, slots: JSON.parse(r.slots) as string[], timezone: r.timezone,
    enabled: r.enabled === 1, createdAt: r.created_at,
  };
}

export class SqliteAutomationRules implements AutomationRules {
  constructor(private readonly db: Database.Database) {}

  private rows(where: string, ...params: unknown[]): AutomationRuleRecord[] {
    return (this.db.prepare(`SELECT r.*, c.platform AS platform, c.handle AS handle, c.status AS status FROM automation_rules r
      JOIN connected_accounts c ON c.id = r.connected_account_id WHERE ${where} ORDER BY r.created_at, r.id`).all(...params) as RuleRow[]).map(toRule);
  }

  async list(accountId: string, connectedAccountId: string): Promise<AutomationRuleRecord[]> {
    return this.rows('r.connected_account_id = ? AND r.account_id = ?', connectedAccountId, accountId);
  }

  async insert(r: NewAutomationRule): Promise<AutomationRuleRecord> {
    this.db.prepare(`INSERT INTO automation_rules (id, account_id, connected_account_id, min_viral_score, slots, timezone, enabled, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 1, ?)`).run(r.id, r.accountId, r.connectedAccountId, r.minViralScore, JSON.stringify(r.slots), r.timezone, r.createdAt);
    return this.rows('r.id = ?', r.id)[0]!;
  }

  async remove(accountId: string, connectedAccountId: string, ruleId: string): Promise<AutomationRuleRecord | undefined> {
    return this.db.transaction(() => {
      const rule = this.rows('r.id = ? AND r.connected_account_id = ? AND r.account_id = ?', ruleId, connectedAccountId, accountId)[0];
      if (rule) this.db.prepare('DELETE FROM automation_rules WHERE id = ?').run(ruleId);
      return rule;
    })();
  }

  async completedWithRules(scope: 'api' | 'local'): Promise<string[]> {
    return (this.db.prepare(`SELECT DISTINCT q.id AS id FROM requests q JOIN automation_rules r ON r.account_id = q.account_id
      WHERE q.status = 'completed' AND q.finished_at >= r.created_at AND r.enabled = 1 AND q.account_id ${scope === 'local' ? '=' : '<>'} ?
      ORDER BY q.finished_at`).all(LOCAL_ACCOUNT) as { id: string }[]).map((r) => r.id);
  }

  async apply(requestId: string, after: string, plan: (s: AutomationSnapshot) => NewPost[]): Promise<PostRecord[]> {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT * FROM requests WHERE id = ?').get(requestId) as RequestRow | undefined;
      if (!row || row.status !== 'completed') return [];
      const request = requestOfRow(row);
      const rules = this.rows('r.account_id = ? AND r.enabled = 1 AND r.created_at <= ?', request.accountId, request.finishedAt ?? request.updatedAt);
      if (rules.length === 0) return [];
      const accounts = JSON.stringify([...new Set(rules.map((r) => r.connectedAccountId))]);
      const clips = (this.db.prepare('SELECT * FROM shorts WHERE request_id = ? ORDER BY rank').all(requestId) as ShortRow[]).map(shortOfRow);
      const posted = this.db.prepare(`SELECT connected_account_id AS ca, short_id AS s FROM posts WHERE source = 'automation'
        AND connected_account_id IN (SELECT value FROM json_each(?))`).all(accounts) as { ca: string; s: string }[];
      const taken = this.db.prepare(`SELECT connected_account_id AS ca, scheduled_at AS at FROM posts WHERE status IN ('scheduled', 'processing', 'published')
        AND scheduled_at > ? AND connected_account_id IN (SELECT value FROM json_each(?))`).all(after, accounts) as { ca: string; at: string }[];
      const posts = plan({
        request, rules, clips,
        automationPosted: new Set(posted.map((p) => `${p.ca} ${p.s}`)),
        takenSlots: new Set(taken.map((p) => `${p.ca} ${p.at}`)),
      });
      return posts.map((p) => insertPost(this.db, p));
    }).immediate();
  }
}
