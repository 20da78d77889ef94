// Status shown in words with an icon (never colour alone), and times said the way people say them.
import type { RequestListItem } from '../../api/types';

type RequestStatus = RequestListItem['status'];

/**
 * A list item as GET /shorts answers a studio session (contract, issue 25): where the request was made and
 * the source's title ('' until known). Optional until the server's list extension declares them in
 * src/api/types.ts (the key's answer has neither).
 */
export type StudioListItem = RequestListItem & { createdIn?: 'api' | 'studio' | 'local'; title?: string };

const REQUEST_STATUS: Record<RequestStatus, { icon: string; label: string }> = {
  queued: { icon: '◷', label: 'Queued' },
  processing: { icon: '↻', label: 'Processing' },
  completed: { icon: '✓', label: 'Completed' },
  failed: { icon: '✕', label: 'Failed' },
  cancelled: { icon: '⊘', label: 'Cancelled' },
};

export function StatusBadge({ status, icon, label }: { status: string; icon: string; label: string }) {
  return (
    <span class={`badge badge-${status}`}>
      <span class="badge-icon" aria-hidden="true">{icon}</span>
      {label}
    </span>
  );
}

export function RequestStatusBadge({ status }: { status: RequestStatus }) {
  const s = REQUEST_STATUS[status] ?? { icon: '?', label: status };
  return <StatusBadge status={status} icon={s.icon} label={s.label} />;
}

export const requestStatusLabel = (status: RequestStatus): string => REQUEST_STATUS[status]?.label ?? status;

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400], ['month', 30 * 86400], ['week', 7 * 86400], ['day', 86400], ['hour', 3600], ['minute', 60],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "3 minutes ago", "in 2 days"; "just now" within a minute. */
export function relativeTime(iso: string, now = Date.now()): string {
  const sec = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of UNITS) if (Math.abs(sec) >= size) return relative.format(Math.round(sec / size), unit);
  return 'just now';
}

export function Time({ iso, now }: { iso: string; now?: number }) {
  return <time dateTime={iso} title={absolute.format(new Date(iso))}>{relativeTime(iso, now)}</time>;
}

export const formatDateTime = (iso: string): string => absolute.format(new Date(iso));
