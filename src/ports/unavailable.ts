// An engine behind a port (PostgreSQL, Redis) cannot be reached right now: it is restarting, or the network
// to it is cut. Not a fault of the call, which may well succeed a few seconds later; adapters throw this for
// their connection errors (the cause kept, the message the driver's) so the layers above tell it from a bug:
// the API answers 503 `service_unavailable` (not 500), a worker hands its job back to run again from its
// checkpoint (it does not fail the request).

export class EngineUnavailable extends Error {
  constructor(readonly engine: 'PostgreSQL' | 'Redis', cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'EngineUnavailable';
  }
}

/** Whether `e`, or an error it wraps (a stage's PipelineError around a store write), is an EngineUnavailable. */
export function engineUnavailable(e: unknown): EngineUnavailable | undefined {
  for (let c = e, depth = 0; c !== undefined && c !== null && depth < 8; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof EngineUnavailable) return c;
  }
  return undefined;
}
