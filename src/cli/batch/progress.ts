// Progress of a batch on stderr. On a terminal: one live line per running item and a total line with an
// ETA, redrawn in place, finished items scrolling above them. Elsewhere (a CI log, a pipe): plain lines,
// one per event worth a line (started, step reached, finished), never a redraw. --quiet keeps only what a
// script must still learn (failures, rate-limit pauses, the summary).
import type { StatusResponse } from '../../api/types.js';
import type { ItemRecord } from './state.js';

export interface ProgressSink {
  begin(info: { total: number; toRun: number; alreadyDone: number; concurrency: number; folder: string }): void;
  itemStarted(item: ItemRecord): void;
  itemStatus(item: ItemRecord, status: StatusResponse): void;
  itemClip(item: ItemRecord, done: number, total: number): void;
  itemFinished(item: ItemRecord): void;
  /** A line that is always shown (a rate-limit pause, a note about the state). */
  note(line: string): void;
  end(): void;
}

/**
 * The ETA's basis: seconds of source processed per second of wall time, over this run. An item counts as
 * it goes (its progress times its range), so the speed is known before the first item finishes, and the
 * measure includes the concurrency actually achieved.
 */
export class Throughput {
  private readonly startedAt = Date.now();
  private doneSeconds = 0;
  private readonly live = new Map<string, { fraction: number; seconds: number | null }>();
  private remainingQueued: number;
  private unknownQueued: number;

  constructor(queued: readonly ItemRecord[], private readonly now: () => number = Date.now) {
    this.remainingQueued = queued.reduce((n, i) => n + (i.sourceSeconds ?? 0), 0);
    this.unknownQueued = queued.filter((i) => i.sourceSeconds === null).length;
  }

  started(item: ItemRecord): void {
    this.live.set(item.digest, { fraction: 0, seconds: item.sourceSeconds });
    if (item.sourceSeconds === null) this.unknownQueued--;
    else this.remainingQueued -= item.sourceSeconds;
  }

  /** The item's range became known after it started (a whole file probed, a range adjusted). */
  sized(item: ItemRecord): void {
    const l = this.live.get(item.digest);
    if (l) l.seconds = item.sourceSeconds;
  }

  progress(item: ItemRecord, fraction: number): void {
    const l = this.live.get(item.digest);
    if (l) l.fraction = Math.min(1, Math.max(l.fraction, fraction));
  }

  finished(item: ItemRecord): void {
    const l = this.live.get(item.digest);
    this.live.delete(item.digest);
    // A failed item's time counts against the speed too (it took the slot), but not its source seconds.
    if (item.status === 'completed') this.doneSeconds += item.sourceSeconds ?? l?.seconds ?? 0;
  }

  /** Seconds of source per wall second, or null before there is anything to measure. */
  speed(): number | null {
    const elapsed = (this.now() - this.startedAt) / 1000;
    let processed = this.doneSeconds;
    for (const l of this.live.values()) processed += (l.seconds ?? 0) * l.fraction;
    return elapsed >= 3 && processed > 0 ? processed / elapsed : null;
  }

  /** Seconds left, or null when the speed is not known yet. */
  eta(): number | null {
    const speed = this.speed();
    if (speed === null) return null;
    const known = [...this.live.values()].filter((l) => l.seconds !== null);
    let left = this.remainingQueued;
    for (const l of known) left += l.seconds! * (1 - l.fraction);
    // Items of unknown length are taken as long as the average known one.
    const sizes = [...known.map((l) => l.seconds!), ...(this.remainingQueued > 0 ? [this.remainingQueued] : [])];
    const average = sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : 0;
    left += average * (this.unknownQueued + [...this.live.values()].filter((l) => l.seconds === null).length);
    return left / speed;
  }
}

export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}` : `${m}:${String(r).padStart(2, '0')}`;
}

function finishedLine(item: ItemRecord): string {
  const took = item.timings.seconds !== null ? ` in ${clock(item.timings.seconds)}` : '';
  switch (item.status) {
    case 'completed': {
      const ok = item.clips.filter((c) => c.file !== null).length;
      return `${item.out}: completed, ${ok} clip${ok === 1 ? '' : 's'}${took}`;
    }
    case 'failed': return `${item.out}: FAILED${took}: ${item.failureReason ?? 'unknown reason'}`;
    case 'cancelled': return `${item.out}: cancelled${took}${item.requestId ? ` (request ${item.requestId})` : ''}`;
    case 'interrupted': return `${item.out}: interrupted${took}; a re-run continues it`;
    default: return `${item.out}: ${item.status}`;
  }
}

interface Counts { total: number; done: number; failed: number }

/** Plain lines for logs and pipes. */
export class LineProgress implements ProgressSink {
  private readonly steps = new Map<string, string>();
  private counts: Counts = { total: 0, done: 0, failed: 0 };

  constructor(private readonly write: (line: string) => void, private readonly quiet: boolean, private readonly throughput: () => Throughput | null) {}

  begin(info: { total: number; toRun: number; alreadyDone: number; concurrency: number; folder: string }): void {
    this.counts = { total: info.total, done: info.alreadyDone, failed: 0 };
    if (!this.quiet) this.write(`batch: ${info.total} item${info.total === 1 ? '' : 's'}, ${info.toRun} to run${info.alreadyDone ? `, ${info.alreadyDone} already completed` : ''}, ${info.concurrency} at a time, into ${info.folder}`);
  }

  itemStarted(item: ItemRecord): void {
    if (!this.quiet) this.write(`${item.out}: started${item.attempts > 1 ? ` (try ${item.attempts})` : ''}`);
  }

  itemStatus(item: ItemRecord, status: StatusResponse): void {
    if (this.steps.get(item.digest) === status.step) return;
    this.steps.set(item.digest, status.step);
    if (!this.quiet) this.write(`${item.out}: ${status.stepMessage} (${status.progress}%)${item.requestId ? ` request ${item.requestId}` : ''}`);
  }

  itemClip(item: ItemRecord, done: number, total: number): void {
    if (!this.quiet) this.write(`${item.out}: rendered clip ${done}/${total}`);
  }

  itemFinished(item: ItemRecord): void {
    this.steps.delete(item.digest);
    if (item.status === 'completed') this.counts.done++;
    if (item.status === 'failed' || item.status === 'cancelled') this.counts.failed++;
    const failure = item.status !== 'completed';
    if (this.quiet && !failure) return;
    const eta = this.throughput()?.eta();
    const tail = ` [${this.counts.done}/${this.counts.total} done${eta != null && this.counts.done < this.counts.total ? `, ETA ${clock(eta)}` : ''}]`;
    this.write(`${finishedLine(item)}${tail}`);
  }

  note(line: string): void {
    this.write(line);
  }

  end(): void {}
}

/** The live display for a person at a terminal. */
export class LiveProgress implements ProgressSink {
  private readonly running = new Map<string, { item: ItemRecord; text: string; progress: number; since: number }>();
  private readonly above: string[] = [];
  private drawn = 0;
  private counts: Counts = { total: 0, done: 0, failed: 0 };
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly stream: NodeJS.WriteStream, private readonly throughput: () => Throughput | null) {}

  begin(info: { total: number; toRun: number; alreadyDone: number; concurrency: number; folder: string }): void {
    this.counts = { total: info.total, done: info.alreadyDone, failed: 0 };
    this.above.push(`batch: ${info.total} item${info.total === 1 ? '' : 's'}, ${info.toRun} to run${info.alreadyDone ? `, ${info.alreadyDone} already completed` : ''}, ${info.concurrency} at a time, into ${info.folder}`);
    // The clocks tick even when no status arrives (a long render step).
    this.timer = setInterval(() => this.draw(), 1000);
    this.timer.unref();
    this.draw();
  }

  itemStarted(item: ItemRecord): void {
    this.running.set(item.digest, { item, text: 'starting', progress: 0, since: Date.now() });
    this.draw();
  }

  itemStatus(item: ItemRecord, status: StatusResponse): void {
    const r = this.running.get(item.digest);
    if (!r) return;
    if (!r.text.startsWith('Rendering') || status.step !== 'finalizing') r.text = status.stepMessage;
    r.progress = status.progress;
    this.draw();
  }

  itemClip(item: ItemRecord, done: number, total: number): void {
    const r = this.running.get(item.digest);
    if (r) r.text = `Rendering clip ${Math.min(done + 1, total)}/${total}`;
    this.draw();
  }

  itemFinished(item: ItemRecord): void {
    this.running.delete(item.digest);
    if (item.status === 'completed') this.counts.done++;
    if (item.status === 'failed' || item.status === 'cancelled') this.counts.failed++;
    this.above.push(finishedLine(item));
    this.draw();
  }

  note(line: string): void {
    this.above.push(line);
    this.draw();
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    this.running.clear();
    this.draw(false);
  }

  private draw(withTotal = true): void {
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    const fit = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
    const nameWidth = Math.min(28, Math.max(4, ...[...this.running.values()].map((r) => r.item.out.length)));
    const block: string[] = [];
    for (const r of this.running.values()) {
      const name = r.item.out.length > nameWidth ? `${r.item.out.slice(0, nameWidth - 1)}…` : r.item.out.padEnd(nameWidth);
      block.push(fit(`  ${name}  ${String(r.progress).padStart(3)}%  ${clock((Date.now() - r.since) / 1000).padStart(5)}  ${r.text}`));
    }
    if (withTotal) {
      const speed = this.throughput()?.speed();
      const eta = this.throughput()?.eta();
      block.push(fit(`  ${this.counts.done}/${this.counts.total} done, ${this.counts.failed} failed, ${this.running.size} running`
        + (speed != null ? `, ${speed.toFixed(1)} s of video per s` : '') + (eta != null ? `, ETA ${clock(eta)}` : '')));
    }
    // Back to the first line of the previous block, clear to the end of the screen, print what scrolls away, then the block.
    let out = this.drawn > 0 ? `\x1b[${this.drawn}F\x1b[J` : '';
    for (const line of this.above.splice(0)) out += `${line}\n`;
    for (const line of block) out += `${line}\n`;
    this.drawn = block.length;
    this.stream.write(out);
  }
}
