// What each spec 3.2 step of a request says to whoever reads its status (the API's `stepMessage`).
import type { Step } from '../domain/request.js';

export const STEP_MESSAGES: Record<Step, string> = {
  queued: 'Waiting in queue...',
  fetching_video: 'Fetching video...',
  transcribing_audio: 'Analyzing video...',
  finding_highlights: 'Finding interesting segments...',
  finalizing: 'Finalizing data...',
  completed: 'Task complete!',
  failed: 'Processing failed',
  cancelled: 'Request cancelled',
};
