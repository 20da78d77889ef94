// The create answer's queue position and ETA, handed from the create view to the request view it opens:
// the status call does not carry them (only the live stream's status does), and a creator should see "next in
// the queue, ready in about 3 minutes" from the first moment. Kept per tab; a reload of the page keeps it.
import type { CreateResponse } from '../../api/types';

type Estimate = Pick<CreateResponse, 'queuePosition' | 'estimatedCompletionTime'>;

const key = (id: string) => `shortwright:created:${id}`;

/** The create view calls this with POST /shorts/create's answer before it routes to /requests/<id>. */
export function rememberCreated(answer: CreateResponse): void {
  const estimate: Estimate = { queuePosition: answer.queuePosition, estimatedCompletionTime: answer.estimatedCompletionTime };
  try {
    sessionStorage.setItem(key(answer.requestId), JSON.stringify(estimate));
  } catch {
    // Storage off (private mode, quota): the view waits for the live stream's estimate instead.
  }
}

export function createdEstimate(id: string): Partial<Estimate> {
  try {
    const raw = sessionStorage.getItem(key(id));
    return raw ? (JSON.parse(raw) as Estimate) : {};
  } catch {
    return {};
  }
}
