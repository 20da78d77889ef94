// Paces status polling to the account's hourly budget (spec 8.2/8.3). The account limit counts every call,
// status checks included: at the spec's recommended 10 s, polling one request spends the default 100 calls
// of an hour in under 17 minutes, and `shorts wait A B C` or a remote batch N times faster — then every
// call, downloads and creates included, is refused until the hour resets. The pacer reads the 8.3 headers of
// every answer and stretches the poll interval so that the polls of all requests being waited for fit what
// is left of the hour, keeping a reserve for the calls that follow (downloads, the next create).

/** What the last answer said of the hourly budget. */
export interface HourBudget {
  limit: number;
  remaining: number;
  /** When the hour's count resets (epoch ms). */
  resetAt: number;
}

type Headers = Record<string, string | string[] | undefined>;

function header(h: Headers, name: string): string | undefined {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** The 8.3 headers of one answer; null when the server sends none (then polling keeps its interval). */
export function hourBudgetOf(h: Headers): HourBudget | null {
  const limit = Number(header(h, 'X-RateLimit-Limit-Hour'));
  const remaining = Number(header(h, 'X-RateLimit-Remaining-Hour'));
  const resetAt = Date.parse(header(h, 'X-RateLimit-Reset') ?? '');
  if (![limit, remaining, resetAt].every(Number.isFinite)) return null;
  return { limit, remaining, resetAt };
}

export class PollPacer {
  private budget: HourBudget | null = null;
  private waiting = 0;

  /** Notes the budget an answer reports (answers can arrive out of order: within one hour the lowest wins). */
  observe(headers: Headers): void {
    const b = hourBudgetOf(headers);
    if (!b) return;
    const same = this.budget && this.budget.resetAt === b.resetAt;
    this.budget = same ? { ...b, remaining: Math.min(b.remaining, this.budget!.remaining) } : b;
  }

  /** Counts one more request being waited for; call the returned function when it is no longer waited for. */
  enter(): () => void {
    this.waiting++;
    let left = false;
    return () => { if (!left) { left = true; this.waiting--; } };
  }

  /**
   * How long to sleep before the next status check: `baseMs` (the configured interval) unless the hour's
   * budget, shared by every request being waited for, needs the polls further apart. With nothing left
   * but the reserve, the next check comes just after the reset.
   */
  delayMs(baseMs: number, now = Date.now()): number {
    const b = this.budget;
    if (!b || now >= b.resetAt) return baseMs;
    const reserve = Math.max(2, Math.ceil(b.limit * 0.1));
    const usable = b.remaining - reserve;
    const untilReset = b.resetAt - now;
    if (usable <= 0) return Math.max(baseMs, untilReset + 1000);
    return Math.max(baseMs, Math.ceil((untilReset * Math.max(1, this.waiting)) / usable));
  }
}
