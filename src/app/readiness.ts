// Readiness of the engines an Engine was built on (/readyz, issue 24 point 6): the composition root gives
// one probe per configured engine — the request store always; the job queue's connection, the blob store
// and Redis when they are separate engines — each a cheap call of its adapter. A probe that throws or does
// not answer in time fails its check, named after the engine, with the reason as its detail.

export interface ReadinessCheck { name: string; ok: boolean; detail: string }

export interface ReadinessProbe {
  /** The check's name in /readyz (`store`, `queue`, `blobs`, `redis`). */
  name: string;
  /** Resolves with a short detail when the engine answers; throws why not. */
  check(): Promise<string>;
}

/** A probe's longest wait: a server that accepts the connection but never answers is not ready either. */
export const PROBE_TIMEOUT_MS = 3000;

export function checkReadiness(probes: readonly ReadinessProbe[], timeoutMs = PROBE_TIMEOUT_MS): Promise<ReadinessCheck[]> {
  return Promise.all(probes.map(async ({ name, check }): Promise<ReadinessCheck> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return { name, ok: true, detail: await Promise.race([check(), late]) };
    } catch (e) {
      return { name, ok: false, detail: e instanceof Error ? e.message : String(e) };
    } finally {
      clearTimeout(timer);
    }
  }));
}
