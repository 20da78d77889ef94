// A request at work: the steps as a stepper, the progress bar, the queue position and the ETA in words,
// warnings, why it failed, and the Cancel button. Screen readers hear each new step (and the end), never
// every percent.
import type { StatusResponse } from '../../api/types';
import type { LiveStatus } from '../live';
import { etaWords, queueWords } from './review-format';

export type Step = StatusResponse['step'];

const STEPS: { step: Step; label: string }[] = [
  { step: 'queued', label: 'Queued' },
  { step: 'fetching_video', label: 'Fetching the video' },
  { step: 'transcribing_audio', label: 'Transcribing' },
  { step: 'finding_highlights', label: 'Finding highlights' },
  { step: 'finalizing', label: 'Rendering clips' },
];

const HEADLINES: Record<StatusResponse['status'], string> = {
  queued: 'Waiting in the queue', processing: 'Working on it', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled',
};

const CANCELLABLE = new Set(['queued', 'processing']);

export interface ProgressProps {
  status: LiveStatus;
  /** The last working step seen: a failed or cancelled request reports only 'failed'/'cancelled'. */
  lastStep: Step | null;
  now: number;
  cancelling: boolean;
  cancelError: string | null;
  onCancel(): void;
}

type StepState = 'done' | 'current' | 'stopped' | 'todo';

/** null: a request that ended before this page saw it work says no more than 'failed' or 'cancelled'. */
function stepStates(status: LiveStatus, lastStep: Step | null): StepState[] | null {
  if (status.status === 'completed') return STEPS.map(() => 'done');
  const terminal = status.status === 'failed' || status.status === 'cancelled';
  if (terminal && lastStep === null) return null;
  const at = STEPS.findIndex((s) => s.step === (terminal ? lastStep : status.step));
  return STEPS.map((_, i) => (i < at ? 'done' : i === at ? (terminal ? 'stopped' : 'current') : 'todo'));
}

const STATE_WORDS: Record<StepState, string> = { done: 'done', current: 'in progress', stopped: 'stopped here', todo: 'not started' };

function Stepper({ states }: { states: StepState[] }) {
  return (
    <ol class="review-steps">
      {STEPS.map((s, i) => {
        const state = states[i] ?? 'todo';
        return (
          <li key={s.step} class={`review-step is-${state}`} aria-current={state === 'current' ? 'step' : undefined}>
            <span class="review-step-dot" aria-hidden="true">{state === 'done' ? '✓' : state === 'stopped' ? '✕' : i + 1}</span>
            <span class="review-step-label">{s.label}</span>
            <span class="visually-hidden"> ({STATE_WORDS[state]})</span>
          </li>
        );
      })}
    </ol>
  );
}

export function ReviewProgress({ status, lastStep, now, cancelling, cancelError, onCancel }: ProgressProps) {
  const live = CANCELLABLE.has(status.status);
  const states = stepStates(status, lastStep);
  const queue = status.status === 'queued' ? queueWords(status.queuePosition) : null;
  const eta = live ? etaWords(status.estimatedCompletionTime, now) : null;
  const headline = HEADLINES[status.status];

  return (
    <section class={`review-progress review-status-${status.status}`} aria-labelledby="review-progress-h">
      <h2 id="review-progress-h" class="review-progress-head">
        <span class="visually-hidden">Progress: </span>{headline}
      </h2>
      {states && <Stepper states={states} />}
      {live && (
        <div class="review-bar">
          <label for="review-progress-bar">{status.stepMessage}</label>
          <progress id="review-progress-bar" max={100} value={status.progress} />
          <span class="review-percent" aria-hidden="true">{Math.round(status.progress)} %</span>
        </div>
      )}
      {(queue || eta) && (
        <p class="review-eta">
          {queue}
          {queue && eta ? ' · ' : ''}
          {eta && <>Should be ready {eta}</>}
        </p>
      )}
      {/* What a screen reader hears: the step (not the percent), then how it ended. */}
      <p class="visually-hidden" aria-live="polite">
        {status.status === 'completed' ? 'The request is completed.' : status.status === 'cancelled' ? 'The request was cancelled.' : status.stepMessage}
      </p>
      {status.status === 'failed' && (
        <p class="review-failure" role="alert">
          <strong>Why it failed: </strong>{status.failureReason ?? 'the server did not say.'}
        </p>
      )}
      {status.warnings && status.warnings.length > 0 && (
        <div class="review-warnings">
          <p class="review-warnings-head" id="review-warnings-h">Warnings</p>
          <ul aria-labelledby="review-warnings-h">
            {status.warnings.map((w) => <li key={w}>{w}</li>)}
          </ul>
        </div>
      )}
      {status.status !== 'completed' && (
        <div class="review-cancel">
          <button type="button" class="danger" disabled={!live || cancelling} onClick={onCancel}>
            {cancelling ? 'Cancelling…' : 'Cancel request'}
          </button>
          {!live && <span class="muted"> This request has ended: there is nothing to cancel.</span>}
          {cancelError && <p class="error" role="alert">{cancelError}</p>}
        </div>
      )}
    </section>
  );
}
