// Channel automation (issue 16): rules per connected account, "post every new clip with viral_score >= N
// at the next free slot of a daily schedule". When a request completes, each rule of its API account
// turns the qualifying clips (best first) into `source: "automation"` posts at the next free slots, one
// post per slot per connected account. Applying a request twice changes nothing (a clip is posted by a
// rule's account once, even if the user canceled that post), so the completion hook and the sweep at
// start-up (a completion the process did not live to handle) can both run.
import { randomBytes } from 'node:crypto';
import { ShortsError } from '../errors.js';
import type { Platform } from '../publish/types.js';
import type { AutomationRuleRecord, AutomationRules, AutomationSnapshot } from '../ports/automation-rules.js';
import { postObject, type NewPost } from '../ports/post-store.js';
import { checkPostText, reconnectFirst, TEXT_LIMITS, type PostsService } from './posts-service.js';
import type { AutomationRule, PostObject } from '../api/types.js';

export type { AutomationRule };

const RULE_ID = /^[0-9a-f]{24}$/;
const SLOT = /^([01]\d|2[0-3]):([0-5]\d)$/;
const MAX_SLOTS = 24;
/** How far ahead a free slot is looked for before the clip is left unposted (a full schedule). */
const HORIZON_DAYS = 366;

function toRule(r: AutomationRuleRecord): AutomationRule {
  return {
    id: r.id, accountId: r.connectedAccountId, platform: r.platform, handle: r.handle, minViralScore: r.minViralScore,
    slots: r.slots, timezone: r.timezone, createdAt: r.createdAt,
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
  constructor(private readonly rules: AutomationRules, private readonly posts: PostsService, private readonly log: (line: string) => void = () => {}) {}

  private async connected(apiAccountId: string, connectedAccountId: string): Promise<{ id: string; platform: Platform; handle: string }> {
    const found = await this.posts.accounts.get(apiAccountId, connectedAccountId);
    if (!found) throw new ShortsError('resource_not_found', `connected account ${connectedAccountId} was not found`);
    return found;
  }

  async list(apiAccountId: string, connectedAccountId: string): Promise<AutomationRule[]> {
    await this.connected(apiAccountId, connectedAccountId);
    return (await this.rules.list(apiAccountId, connectedAccountId)).map(toRule);
  }

  /** POST /accounts/:id/automation: `{minViralScore, slots, timezone?}`. */
  async add(apiAccountId: string, connectedAccountId: string, raw: unknown): Promise<AutomationRule> {
    const account = await this.connected(apiAccountId, connectedAccountId);
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
    return toRule(await this.rules.insert({
      id: randomBytes(12).toString('hex'), accountId: apiAccountId, connectedAccountId: account.id, minViralScore: min, slots: unique, timezone: tz,
      createdAt: new Date().toISOString(),
    }));
  }

  async remove(apiAccountId: string, connectedAccountId: string, ruleId: string): Promise<AutomationRule> {
    await this.connected(apiAccountId, connectedAccountId);
    if (!RULE_ID.test(ruleId)) throw new ShortsError('invalid_request', `rule id must be a 24-character hex string, got "${ruleId}"`, { parameter: 'ruleId' });
    const removed = await this.rules.remove(apiAccountId, connectedAccountId, ruleId);
    if (!removed) throw new ShortsError('resource_not_found', `automation rule ${ruleId} was not found on account ${connectedAccountId}`);
    return toRule(removed);
  }

  /**
   * A request has completed: its qualifying clips become automation posts of every rule of its account
   * that existed before it finished ("new" clips). Returns the posts made.
   */
  async onRequestCompleted(requestId: string, now = Date.now()): Promise<PostObject[]> {
    // One unit of work per request's run (the port's apply): two processes applying the rules to one request at
    // once (two serves' start-up sweeps, a serve and `shorts posts run`) cannot both find a clip unposted and
    // post it twice; the second sees the first one's posts.
    const made = await this.rules.apply(requestId, new Date(now).toISOString(), (s) => this.plan(s, now));
    await this.posts.scheduled(made);
    return made.map(postObject);
  }

  /** The posts the rules make of a request's clips: best clips first, each at its rule's next free slot. */
  private plan(s: AutomationSnapshot, now: number): NewPost[] {
    const planned: NewPost[] = [];
    const clips = s.clips.filter((c) => !c.error && c.fileKey).sort((a, b) => b.viralScore - a.viralScore);
    for (const rule of s.rules) {
      const ca = rule.connectedAccountId;
      const qualifying = clips.filter((c) => Math.round(c.viralScore) >= rule.minViralScore && !s.automationPosted.has(`${ca} ${c.id}`));
      if (qualifying.length === 0) continue;
      const times = slotTimes(rule.slots, rule.timezone, now);
      for (const clip of qualifying) {
        // next() by hand: leaving a for-of early would close the generator, and the next clip needs the slots after this one.
        let at: string | null = null;
        for (let t = times.next(); !t.done; t = times.next()) {
          const iso = new Date(t.value).toISOString();
          if (!s.takenSlots.has(`${ca} ${iso}`)) { at = iso; break; }
        }
        if (!at) {
          this.log(`automation rule ${rule.id}: no free slot in the next ${HORIZON_DAYS} days for clip ${clip.id}`);
          break;
        }
        const title = fitTitle(clip.title, TEXT_LIMITS[rule.platform].title);
        try {
          // An account that needs reconnecting, a caption the platform refuses: that clip is skipped, the rule stays.
          if (rule.connectedStatus !== 'active') throw new ShortsError('invalid_request', reconnectFirst(rule.handle, rule.platform));
          checkPostText(rule.platform, title, clip.description);
        } catch (e) {
          this.log(`automation rule ${rule.id}: clip ${clip.id} not scheduled: ${(e as Error).message}`);
          continue;
        }
        planned.push({
          accountId: s.request.accountId, connectedAccountId: ca, platform: rule.platform, scheduledAt: at, shortId: clip.id,
          requestId: clip.requestId, title, description: clip.description, accountHandle: rule.handle, source: 'automation',
        });
        s.takenSlots.add(`${ca} ${at}`);
        s.automationPosted.add(`${ca} ${clip.id}`);
      }
    }
    return planned;
  }

  /** Completed requests of accounts with rules that may not have been applied (start-up, `shorts posts run`). */
  async sweep(scope: 'api' | 'local', now = Date.now()): Promise<PostObject[]> {
    const made: PostObject[] = [];
    for (const id of await this.rules.completedWithRules(scope)) made.push(...await this.onRequestCompleted(id, now));
    return made;
  }
}
