// Channel automation (issue 16): rules per connected account, "post every new clip with viral_score >= N
// at the next free slot of a daily schedule". When a request completes, each rule of its API account
// turns the qualifying clips (best first) into `source: "automation"` posts at the next free slots, one
// post per slot per connected account. Applying a request twice changes nothing (a clip is posted by a
// rule's account once, even if the user canceled that post), so the completion hook and the sweep at
// start-up (a completion the process did not live to handle) can both run.
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ShortsError } from '../errors.js';
import type { SqliteRequestStore } from '../adapters/sqlite/request-store.js';
import type { Platform } from '../publish/types.js';
import { PostsService, TEXT_LIMITS } from './posts-service.js';
import type { AutomationRule, PostObject } from '../api/types.js';

export type { AutomationRule };

interface RuleRow {
  id: string; account_id: string; connected_account_id: string; min_viral_score: number; slots: string; timezone: string;
  enabled: number; created_at: string; platform: Platform; handle: string;
}

const RULE_ID = /^[0-9a-f]{24}$/;
const SLOT = /^([01]\d|2[0-3]):([0-5]\d)$/;
const MAX_SLOTS = 24;
/** How far ahead a free slot is looked for before the clip is left unposted (a full schedule). */
const HORIZON_DAYS = 366;

function toRule(r: RuleRow): AutomationRule {
  return {
    id: r.id, accountId: r.connected_account_id, platform: r.platform, handle: r.handle, minViralScore: r.min_viral_score,
    slots: JSON.parse(r.slots) as string[], timezone: r.timezone, createdAt: r.created_at,
  };
}

function bad(field: string, message: string): ShortsError {
  return new ShortsError('invalid_request', message, { field });
}

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of an instant in a time zone. */
function wallClock(instant: number, tz: string): { y: number; m: number; d: number; hh: number; mm: number; ss: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return { y: get('year'), m: get('month'), d: get('day'), hh: get('hour'), mm: get('minute'), ss: get('second') };
}

function offsetMs(instant: number, tz: string): number {
  const w = wallClock(instant, tz);
  return Date.UTC(w.y, w.m - 1, w.d, w.hh, w.mm, w.ss) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a wall-clock time of a day happens in a zone. A time a DST change skips (02:30 on a
 * spring-forward night) becomes the first valid one after it (03:30); a repeated one, its first occurrence.
 */
export function zonedTime(y: number, m: number, d: number, hh: number, mm: number, tz: string): number {
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  const first = guess - offsetMs(guess, tz);
  const second = guess - offsetMs(first, tz);
  const shows = (t: number) => { const w = wallClock(t, tz); return w.hh === hh && w.mm === mm; };
  if (shows(second)) return second;
  if (shows(first)) return first;
  return Math.max(first, second);
}

/** The slot instants of a rule after `after`, in order, for up to HORIZON_DAYS days. */
export function* slotTimes(slots: readonly string[], tz: string, after: number): Generator<number> {
  const today = wallClock(after, tz);
  const sorted = [...slots].sort();
  for (let day = 0; day <= HORIZON_DAYS; day++) {
    const date = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
    for (const slot of sorted) {
      const [hh, mm] = slot.split(':').map(Number) as [number, number];
      const t = zonedTime(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hh, mm, tz);
      if (t > after) yield t;
    }
  }
}

/** A title that fits the platform: cut at a word boundary when the clip's is longer. */
function fitTitle(title: string, max: number): string {
  const chars = [...title.trim()];
  if (chars.length <= max) return title.trim();
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export class Automation {
  private readonly db: Database.Database;

  constructor(private readonly store: SqliteRequestStore, private readonly posts: PostsService, private readonly log: (line: string) => void = () => {}) {
    this.db = store.db;
  }

  private connected(apiAccountId: string, connectedAccountId: string): { id: string; platform: Platform; handle: string } {
    const row = this.posts.accounts.get(apiAccountId, connectedAccountId);
    if (!row) throw new ShortsError('resource_not_found', `connected account ${connectedAccountId} was not found`);
    return row;
  }

  private rows(where: string, ...params: unknown[]): RuleRow[] {
    return this.db.prepare(`SELECT r.*, c.platform AS platform, c.handle AS handle FROM automation_rules r
      JOIN connected_accounts c ON c.id = r.connected_account_id WHERE ${where} ORDER BY r.created_at, r.id`).all(...params) as RuleRow[];
  }

  list(apiAccountId: string, connectedAccountId: string): AutomationRule[] {
    this.connected(apiAccountId, connectedAccountId);
    return this.rows('r.connected_account_id = ? AND r.account_id = ?', connectedAccountId, apiAccountId).map(toRule);
  }

  /** POST /accounts/:id/automation: `{minViralScore, slots, timezone?}`. */
  add(apiAccountId: string, connectedAccountId: string, raw: unknown): AutomationRule {
    const account = this.connected(apiAccountId, connectedAccountId);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ShortsError('invalid_request', 'the body must be a JSON object');
    const body = raw as Record<string, unknown>;
    for (const k of Object.keys(body))
      if (!['minViralScore', 'slots', 'timezone'].includes(k)) throw bad(k, `unknown field "${k}"; a rule takes minViralScore, slots, timezone`);
    const min = body.minViralScore;
    if (typeof min !== 'number' || !Number.isInteger(min) || min < 0 || min > 100)
      throw bad('minViralScore', `minViralScore must be a whole number 0-100 (the clips' viral_score scale), got ${JSON.stringify(min)}`);
    const slots = body.slots;
    if (!Array.isArray(slots) || slots.length === 0 || slots.length > MAX_SLOTS)
      throw bad('slots', `slots must be a list of 1-${MAX_SLOTS} daily times "HH:MM", e.g. ["09:00", "18:00"]`);
    for (const s of slots) if (typeof s !== 'string' || !SLOT.test(s)) throw bad('slots', `slot ${JSON.stringify(s)} is not a time "HH:MM" (00:00-23:59)`);
    const unique = [...new Set(slots as string[])].sort();
    const tz = body.timezone ?? 'UTC';
    if (typeof tz !== 'string' || !validTimeZone(tz)) throw bad('timezone', `timezone must be an IANA time zone such as Europe/Paris, got ${JSON.stringify(tz)}`);
    const id = randomBytes(12).toString('hex');
    this.db.prepare(`INSERT INTO automation_rules (id, account_id, connected_account_id, min_viral_score, slots, timezone, enabled, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 1, ?)`).run(id, apiAccountId, account.id, min, JSON.stringify(unique), tz, new Date().toISOString());
    return toRule(this.rows('r.id = ?', id)[0]!);
  }

  remove(apiAccountId: string, connectedAccountId: string, ruleId: string): AutomationRule {
    this.connected(apiAccountId, connectedAccountId);
    if (!RULE_ID.test(ruleId)) throw new ShortsError('invalid_request', `rule id must be a 24-character hex string, got "${ruleId}"`, { parameter: 'ruleId' });
    const row = this.rows('r.id = ? AND r.connected_account_id = ? AND r.account_id = ?', ruleId, connectedAccountId, apiAccountId)[0];
    if (!row) throw new ShortsError('resource_not_found', `automation rule ${ruleId} was not found on account ${connectedAccountId}`);
    this.db.prepare('DELETE FROM automation_rules WHERE id = ?').run(ruleId);
    return toRule(row);
  }

  /**
   * A request has completed: its qualifying clips become automation posts of every rule of its account
   * that existed before it finished ("new" clips). Returns the posts made.
   */
  onRequestCompleted(requestId: string, now = Date.now()): PostObject[] {
    // One IMMEDIATE transaction (the database's write lock) per request's run: two processes applying the rules
    // to one request at once (two serves' start-up sweeps, a serve and `shorts posts run`) cannot both find a
    // clip unposted and post it twice; the second sees the first one's posts.
    return this.db.transaction(() => this.applyRules(requestId, now)).immediate();
  }

  private applyRules(requestId: string, now: number): PostObject[] {
    const request = this.store.syncRequest(requestId);
    if (!request || request.status !== 'completed') return [];
    const made: PostObject[] = [];
    const finished = request.finishedAt ?? request.updatedAt;
    const rules = this.rows('r.account_id = ? AND r.enabled = 1 AND r.created_at <= ?', request.accountId, finished);
    const clips = this.store.syncShorts(requestId).filter((s) => !s.error && s.fileKey).sort((a, b) => b.viralScore - a.viralScore);
    for (const rule of rules) {
      const account = { id: request.accountId, email: request.userEmail };
      const qualifying = clips.filter((c) => Math.round(c.viralScore) >= rule.min_viral_score && !this.posts.posts.hasAutomationPost(rule.connected_account_id, c.id));
      if (qualifying.length === 0) continue;
      const times = slotTimes(JSON.parse(rule.slots) as string[], rule.timezone, now);
      for (const clip of qualifying) {
        // next() by hand: leaving a for-of early would close the generator, and the next clip needs the slots after this one.
        let at: string | null = null;
        for (let t = times.next(); !t.done; t = times.next()) {
          const iso = new Date(t.value).toISOString();
          if (!this.posts.posts.slotTaken(rule.connected_account_id, iso)) { at = iso; break; }
        }
        if (!at) {
          this.log(`automation rule ${rule.id}: no free slot in the next ${HORIZON_DAYS} days for clip ${clip.id}`);
          break;
        }
        try {
          made.push(this.posts.schedule(account, {
            shortId: clip.id, platform: rule.platform, accountId: rule.connected_account_id, scheduledAt: at,
            title: fitTitle(clip.title, TEXT_LIMITS[rule.platform].title),
          }, 'automation'));
        } catch (e) {
          // An account that needs reconnecting, a caption the platform refuses: that clip is skipped, the rule stays.
          this.log(`automation rule ${rule.id}: clip ${clip.id} not scheduled: ${(e as Error).message}`);
        }
      }
    }
    return made;
  }

  /** Completed requests of accounts with rules that may not have been applied (start-up, `shorts posts run`). */
  sweep(scope: 'api' | 'local', now = Date.now()): PostObject[] {
    const ids = this.db.prepare(`SELECT DISTINCT q.id AS id FROM requests q JOIN automation_rules r ON r.account_id = q.account_id
      WHERE q.status = 'completed' AND q.finished_at >= r.created_at AND r.enabled = 1 AND ${scope === 'local' ? "q.account_id = 'local'" : "q.account_id <> 'local'"}
      ORDER BY q.finished_at`).all() as { id: string }[];
    return ids.flatMap(({ id }) => this.onRequestCompleted(id, now));
  }
}
