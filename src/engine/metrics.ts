// What an engine tells Prometheus (/metrics, issue 24 point 6), in prom-client's text format. One Registry per
// engine, never prom-client's global one: tests run several engines in one process, and two registries must not
// share (or refuse to re-register) a metric. The engine reports what happens (a stage ended, a credit moved, an
// HTTP answer went out); queue depths are read from the job queue when Prometheus scrapes, not kept here.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobQueue, JobState } from '../ports/job-queue.js';
import type { StageName } from './stages.js';

/** How a stage run ended: `aborted` is a cancel, a shutdown or a lease another process took (not the stage's fault). */
export type StageOutcome = 'ok' | 'failed' | 'aborted';

/** What the stages need: the orchestrator (and later the stage jobs) report each stage run here. */
export interface StageMetrics {
  stageDone(stage: StageName, seconds: number, outcome: StageOutcome): void;
}

const JOB_STATES: readonly JobState[] = ['waiting-children', 'waiting', 'delayed', 'active', 'completed', 'failed', 'cancelled'];
/** HTTP methods counted by name; anything else a client sends is `other` (labels must stay few). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export class EngineMetrics implements StageMetrics {
  readonly registry = new Registry();
  private readonly stageSeconds = new Histogram({
    name: 'shorts_stage_duration_seconds', help: 'Time a stage of a request took, by stage and outcome',
    labelNames: ['stage', 'outcome'] as const,
    // From an analysis of seconds to the render of a long recording (half an hour).
    buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800],
    registers: [this.registry],
  });
  private readonly stageFailures = new Counter({
    name: 'shorts_stage_failures_total', help: 'Stages that failed a request run (after their retries), by stage',
    labelNames: ['stage'] as const, registers: [this.registry],
  });
  private readonly credits = new Counter({
    name: 'shorts_credits_total', help: 'Credits charged for accepted creations and refunded for failed requests',
    labelNames: ['change'] as const, registers: [this.registry],
  });
  private readonly http = new Counter({
    name: 'shorts_http_requests_total', help: 'HTTP answers by route (its operationId; `none` for a path no route has), method and status',
    labelNames: ['route', 'method', 'status'] as const, registers: [this.registry],
  });

  // Issue 25: the live progress streams of this server process (src/server/live-hub.ts).
  private readonly eventStreams = new Gauge({
    name: 'shorts_event_streams', help: 'Live progress streams (server-sent events) open on this process', registers: [this.registry],
  });
  private readonly eventPolls = new Counter({
    name: 'shorts_event_polls_total', help: 'Reads of the store by the live progress hub (one per tick for all open streams; none while none is open)',
    registers: [this.registry],
  });

  liveStreams(open: number): void {
    this.eventStreams.set(open);
  }

  livePolled(): void {
    this.eventPolls.inc();
  }

  stageDone(stage: StageName, seconds: number, outcome: StageOutcome): void {
    this.stageSeconds.observe({ stage, outcome }, seconds);
    if (outcome === 'failed') this.stageFailures.inc({ stage });
  }

  creditCharged(): void {
    this.credits.inc({ change: 'charged' });
  }

  creditRefunded(): void {
    this.credits.inc({ change: 'refunded' });
  }

  httpAnswered(route: string, method: string | undefined, status: number): void {
    this.http.inc({ route, method: METHODS.has(method ?? '') ? method! : 'other', status: String(status) });
  }

  /** Queue depths by queue and state, asked of `queue` at each scrape. */
  watchQueues(queue: Pick<JobQueue, 'counts'>, names: readonly string[]): void {
    new Gauge({
      name: 'shorts_queue_jobs', help: 'Jobs in each queue by state, read from the queue when scraped (every process on a shared queue reports the same: aggregate with max, not sum)',
      labelNames: ['queue', 'state'] as const, registers: [this.registry],
      async collect() {
        this.reset();
        // A queue that cannot be read has no samples this scrape (its engine's /readyz check says why).
        await Promise.all(names.map(async (name) => {
          const counts = await queue.counts(name).catch(() => null);
          if (counts) for (const state of JOB_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        }));
      },
    });
  }

  /** The Prometheus text exposition of this engine's metrics. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** Runs one stage and reports its time and outcome (a failure is rethrown as it was). */
export async function timedStage<T>(metrics: StageMetrics | undefined, stage: StageName, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
  if (!metrics) return run();
  const started = performance.now();
  const done = (outcome: StageOutcome) => metrics.stageDone(stage, (performance.now() - started) / 1000, outcome);
  try {
    const result = await run();
    done('ok');
    return result;
  } catch (e) {
    done(signal.aborted ? 'aborted' : 'failed');
    throw e;
  }
}
