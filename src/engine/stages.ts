// The stages of the engine in one typed table (issue 22 point 5): each with its spec step, the progress it
// moves through, and its retry policy — how many runs, how long between them, and which errors are final
// (BullMQ's UnrecoverableError idea: a bad input fails at once; a network hiccup or a child process the
// kernel killed for memory is worth another run). The orchestrator walks the request stages (fetch ->
// transcribe -> analyze -> render); notify (webhooks, src/server/webhooks.ts) and publish (posts,
// src/posts/publisher.ts) run elsewhere and read their policies from here, so there is one table to read.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Step } from '../domain/request.js';
import { ProcessError } from '../media/process.js';
import { isTransientDownloadError } from '../net/download.js';
import { PublishError } from '../publish/types.js';

export type StageName = 'fetch' | 'transcribe' | 'analyze' | 'render' | 'notify' | 'publish';

export interface RetryPolicy {
  /** Runs at most, the first included (1: never retried). */
  attempts: number;
  /** Wait before the 2nd, 3rd, … run; the last entry repeats. */
  backoffMs: readonly number[];
  /** Whether `e` ends the stage at once, whatever attempts are left. */
  isFinal(e: unknown): boolean;
}

export interface StageSpec {
  name: StageName;
  /** The spec 3.2 step a request shows while the stage runs; null for stages outside a request's run. */
  step: Extract<Step, 'fetching_video' | 'transcribing_audio' | 'finding_highlights' | 'finalizing'> | null;
  /** Progress at the stage's start and how far it moves within it (spec 3.2 steps; null outside a request's run). */
  progress: { from: number; span: number } | null;
  retry: RetryPolicy;
}

/** Every cause along `e`'s chain, `e` first (a PipelineError wraps the ProcessError or got error beneath it). */
function causes(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let c = e; c !== undefined && c !== null && out.length < 8; c = (c as { cause?: unknown }).cause) out.push(c);
  return out;
}

/**
 * A child process ended by SIGKILL that nobody here sent (a cancel, a shutdown or a lost lease abort the
 * run's signal and surface as AbortedError, never as this): on Linux that is the OOM killer, and the
 * next run may find the memory free.
 */
export function killedFromOutside(e: unknown): boolean {
  return causes(e).some((c) => c instanceof ProcessError && c.signal === 'SIGKILL');
}

/** Never retried: every error is final (a stage whose failures are all about its input). */
const FINAL: RetryPolicy = { attempts: 1, backoffMs: [], isFinal: () => true };

/** Runs killed for memory get two more tries; any other error is final, as today. */
const OOM_RETRY: RetryPolicy = { attempts: 3, backoffMs: [2000, 10_000], isFinal: (e) => !killedFromOutside(e) };

export const STAGES = {
  fetch: {
    name: 'fetch', step: 'fetching_video', progress: { from: 20, span: 20 },
    // A file URL that answers 408/429/5xx or drops the connection is tried again from scratch (what the
    // downloader did by itself before: 3 runs, 1 s then 2 s apart); a 404, a wrong type, a file too large,
    // a video site's refusal or a file without video are final.
    retry: { attempts: 3, backoffMs: [1000, 2000], isFinal: (e) => !isTransientDownloadError(e) && !killedFromOutside(e) },
  },
  transcribe: { name: 'transcribe', step: 'transcribing_audio', progress: { from: 40, span: 20 }, retry: OOM_RETRY },
  analyze: { name: 'analyze', step: 'finding_highlights', progress: { from: 60, span: 20 }, retry: OOM_RETRY },
  /** Per clip: a failed clip is recorded on the clip (the request completes with the others). */
  render: { name: 'render', step: 'finalizing', progress: { from: 80, span: 20 }, retry: OOM_RETRY },
  notify: {
    name: 'notify', step: null, progress: null,
    // Spec 6: at most 3 attempts, 1 s then 3 s after the previous one; any answer but a 2xx is tried again.
    retry: { attempts: 3, backoffMs: [1000, 3000], isFinal: () => false },
  },
  publish: {
    name: 'publish', step: null, progress: null,
    // Spec 7.3: 3 attempts, 1 min then 5 min apart (a platform's Retry-After, when longer, wins); a code the
    // spec marks not retryable (or a connector says so) is final, and so is a daily cap: it lifts only at
    // the platform's reset, hours away, so the post fails at once saying when (retryable: after the reset).
    retry: { attempts: 3, backoffMs: [60_000, 5 * 60_000], isFinal: (e) => !(e instanceof PublishError && e.retryable) || e.errorCode === 'daily_cap' },
  },
} as const satisfies Record<StageName, StageSpec & { name: StageName }>;

/** The request's stages in the order the orchestrator runs them. */
export const REQUEST_STAGES = [STAGES.fetch, STAGES.transcribe, STAGES.analyze, STAGES.render] as const;
export type RequestStageName = typeof REQUEST_STAGES[number]['name'];

/** The wait before run `attempt + 1` after run `attempt` (1-based) failed. */
export function backoffAfter(policy: RetryPolicy, attempt: number): number {
  return policy.backoffMs[Math.min(attempt - 1, policy.backoffMs.length - 1)] ?? 0;
}

/**
 * Runs `work` under `policy`: again after a non-final error, with its backoff, until the attempts are
 * spent; the last error is thrown as it came. `stop(e)` says an error must pass through untouched (a
 * cancel, a shutdown, a lost lease); an abort of `signal` during a wait ends it with the error seen.
 */
export async function withRetry<T>(policy: RetryPolicy, work: (attempt: number) => Promise<T>,
  o: { signal: AbortSignal; stop?: (e: unknown) => boolean; onRetry?: (e: unknown, attempt: number) => void }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (e) {
      if (o.signal.aborted || o.stop?.(e) || attempt >= policy.attempts || policy.isFinal(e)) throw e;
      o.onRetry?.(e, attempt);
      try {
        await sleep(backoffAfter(policy, attempt), undefined, { signal: o.signal });
      } catch {
        throw e;
      }
    }
  }
}
