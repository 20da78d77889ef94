// The engine's runner of requests, one object for its callers (the worker, the local client, the composition
// root): each method is one kind of work on a request, in a module of its own —
//   run                     every stage in this process (local mode)    request-run.ts
//   runStage                fetch, transcribe or analyze as a job       stage-jobs.ts
//   plannedClips, renderPlannedClip, saveErroredClip
//                           a clip's render job                         clip-jobs.ts
//   finalize                the request's end once its clip jobs ended  finalize.ts
//   rerender                the edit of one clip                        rerender.ts
// What they share: the stage table (stages.ts), what each stage does (request-stages.ts), the checkpoints
// (checkpoints.ts), a clip's render (clip-render.ts) and why work stops without failing (interruptions.ts).
import type { Lease } from '../ports/leases.js';
import type { RequestStageName } from './stages.js';
import type { RequestRecord, ShortRecord } from '../ports/request-store.js';
import type { JobEvents, OrchestratorDeps } from './orchestrator-deps.js';
import { runRequest } from './request-run.js';
import { runStage } from './stage-jobs.js';
import { plannedClips, renderPlannedClip, saveErroredClip } from './clip-jobs.js';
import { finalize } from './finalize.js';
import { rerender } from './rerender.js';

export class Orchestrator {
  constructor(private readonly deps: OrchestratorDeps) {}

  /** The whole request in this process (runRequest). */
  run(id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    return runRequest(this.deps, id, signal, events);
  }

  /** One stage of a request as a stage job (runStage). */
  runStage(id: string, name: Exclude<RequestStageName, 'render'>, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    return runStage(this.deps, id, name, signal, events);
  }

  /** The clips the analyze stage planned, for the render jobs (plannedClips). */
  plannedClips(id: string): Promise<string[]> {
    return plannedClips(this.deps, id);
  }

  /** One planned clip's render job (renderPlannedClip). */
  renderPlannedClip(requestId: string, shortId: string, signal: AbortSignal, events: { lease?: Lease } = {}): Promise<'done' | 'stopped' | 'gone'> {
    return renderPlannedClip(this.deps, requestId, shortId, signal, events);
  }

  /** A clip whose render job failed or died past its attempts, saved errored (saveErroredClip). */
  saveErroredClip(requestId: string, shortId: string, why: string): Promise<void> {
    return saveErroredClip(this.deps, requestId, shortId, why);
  }

  /** The request's end once its clip jobs ended (finalize). */
  finalize(id: string, signal: AbortSignal, events: JobEvents = {}): Promise<RequestRecord> {
    return finalize(this.deps, id, signal, events);
  }

  /** One clip re-rendered with its pending edit (rerender). */
  rerender(requestId: string, shortId: string, signal: AbortSignal,
    events: { onProgress?: (fraction: number) => void; lease?: Lease } = {}): Promise<ShortRecord | undefined> {
    return rerender(this.deps, requestId, shortId, signal, events);
  }
}
