// Remote mode keeps the API's range rule (spec 4.2: start and end required, a window of at most 1200 s);
// local mode covers whole recordings (issue 15). A remote `create` without a range, or with a longer one,
// is refused here before anything is sent, rather than split into several requests behind the user's
// back: each would cost a credit and hand back its own request, ranked on its own. A batch manifest with
// explicit windows does that knowingly.
import { WINDOW_MAX } from '../service/create-request.js';
import { CliError, EXIT } from './cli-error.js';

/** Throws a usage error when a create body for the remote API has no range or one longer than the API's window. */
export function refuseRemoteRange(body: Record<string, unknown>): void {
  const missing = (['start', 'end'] as const).filter((k) => body[k] === undefined);
  const { start, end } = body;
  const window = typeof start === 'number' && typeof end === 'number' ? end - start : null;
  if (missing.length === 0 && (window === null || window <= WINDOW_MAX)) return;
  const what = missing.length > 0
    ? `needs ${missing.map((k) => `--${k}`).join(' and ')}`
    : `allows a window of at most ${WINDOW_MAX} seconds, and ${start}-${end} s is ${Math.round(window! * 1000) / 1000}`;
  throw new CliError(
    `the Shorts API (remote mode) ${what}: every request covers --start to --end, a window of at most ${WINDOW_MAX} s (20 minutes). ` +
    'Whole recordings and longer ranges are made in local mode (no --remote, SHORTS_REMOTE or saved remote): transcribed once and ranked together. ' +
    'To send several windows to the API knowingly (a credit each), list them in a `shorts batch --manifest` with start and end.',
    EXIT.usage);
}
