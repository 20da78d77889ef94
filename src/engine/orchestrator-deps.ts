// What every way of running a request's work (the local run, stage jobs, clip jobs, finalize, re-renders) is
// given: the engine's ports and settings (OrchestratorDeps, filled in by the composition root,
// src/app/create-engine.ts) and what its caller wants to hear (JobEvents).
import type { Lease } from '../ports/leases.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { RenderSettings } from './render-settings.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { UrlCheck } from '../net/download.js';
import type { Transcriber } from '../pipeline/transcribe/transcribe.js';
import type { FaceDetector } from '../pipeline/reframe/faces.js';
import type { RequestStore } from '../ports/request-store.js';
import type { StageMetrics } from './metrics.js';
import type { Step } from '../domain/request.js';

export interface JobEvents {
  onStep?: (step: Step, progress: number) => void;
  onProgress?: (progress: number) => void;
  onClipRendered?: (done: number, total: number) => void;
  /**
   * The runner's lease on the request (issue 22): the writes that finish a step are made only while it is
   * held; once another process took it over this run stops without writing (its signal aborts with LeaseLost).
   */
  lease?: Lease;
}

export interface OrchestratorDeps {
  store: RequestStore;
  /** Where checkpoints, kept captions, clips and covers are kept (made in the scratch folder, then put). */
  blobs: BlobStore;
  transcriber: Transcriber;
  /** This machine's data dir: its `scratch/` folder holds work in progress (scratch.ts); failure reasons hide its paths. */
  dataDir: string;
  render: RenderSettings;
  /** The account's saved background preference, used when blurBackground is omitted. */
  blurPreference?: (accountId: string) => Promise<boolean> | boolean;
  /** The URL guard for downloads of API requests (every address and redirect checked). */
  checkUrl?: UrlCheck;
  /** The engine's runner of every child process of a job (scoped to the job: counted, and killed when it is cancelled). */
  media: MediaRunner;
  /** Finds faces for the crops and covers, made once by whoever builds the engine; default the process's own. */
  faces?: FaceDetector;
  /** Where each stage's time and outcome is reported (/metrics). */
  metrics?: StageMetrics;
}
