// Local mode of `shorts mcp`: a create must answer at once (an agent's tool call cannot block for minutes),
// so the job runs in the background of the MCP process, one at a time in creation order (one job already
// uses every core). This process holds the request's lease from creation on (issue 22), so other `shorts`
// processes see it as live; when the MCP server stops, unfinished jobs are marked failed with a reason
// that says so and their children are killed, and a kill -9 is caught by LocalClient's orphan recovery
// once the lease has expired.
import type { LocalClient } from '../client/local-client.js';
import type { CreateResponse } from '../api/types.js';
import type { McpBackend } from './tools.js';
import { clientBackend } from './client-backend.js';

export const INTERRUPTED = 'interrupted: the MCP server (`shorts mcp`) running this request stopped before it finished';

export class LocalJobRunner {
  private queue: Promise<void> = Promise.resolve();
  /** Jobs of this process not finished yet (waiting their turn or running), with the handle that stops them. */
  private readonly live = new Map<string, AbortController>();
  /** Re-renders of this process not finished yet, by clip id. */
  private readonly liveRerenders = new Map<string, AbortController>();

  constructor(private readonly client: LocalClient, private readonly log: (line: string) => void = () => {}) {}

  /** The client's operations, with create and re-render starting their job in the background of this process. */
  backend(): McpBackend {
    const c = this.client;
    return {
      ...clientBackend(c),
      create: async (body: Record<string, unknown>): Promise<CreateResponse> => {
        const created = await c.create(body);
        this.start(created.requestId);
        return created;
      },
      // Like a create: accepted at once, rendered in the background of this process, after the jobs before it.
      rerender: async (id, shortId, body) => {
        const accepted = await c.rerender(id, shortId, body);
        this.startRerender(id, shortId);
        return accepted;
      },
    };
  }

  private start(id: string): void {
    const stop = new AbortController();
    this.live.set(id, stop);
    this.queue = this.queue.then(() => this.run(id, stop.signal));
  }

  private startRerender(id: string, shortId: string): void {
    const stop = new AbortController();
    this.liveRerenders.set(shortId, stop);
    this.queue = this.queue.then(async () => {
      try {
        // A failed re-render keeps the clip as it was and says why in its editError (the orchestrator records it).
        if (!stop.signal.aborted) await this.client.waitRerender(id, shortId, { signal: stop.signal });
      } catch (e) {
        this.log(`clip ${shortId}: the re-render could not run: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.liveRerenders.delete(shortId);
      }
    });
  }

  private async run(id: string, signal: AbortSignal): Promise<void> {
    try {
      // A cancel made while it waited its turn leaves it terminal: wait() then returns at once.
      if (!signal.aborted) await this.client.wait(id, { signal });
    } catch (e) {
      // The job could not even start (e.g. a misconfigured model setting): never leave it "processing".
      const reason = `the job could not run: ${e instanceof Error ? e.message : String(e)}`;
      this.log(`request ${id}: ${reason}`);
      try {
        await this.client.service.store.finish(id, 'failed', reason);
      } catch {
        // The store is already closed (the server is exiting): orphan recovery marks it on the next start.
      }
    } finally {
      this.live.delete(id);
    }
  }

  /**
   * Marks every unfinished job failed (interrupted) and stops it: wait()'s abort then kills its child
   * processes, and its own attempt to cancel finds the request already terminal. Resolves once the jobs
   * have wound down, or after `graceMs`.
   */
  async stop(graceMs = 3000): Promise<void> {
    for (const [id, stop] of this.live) {
      await this.client.service.store.finish(id, 'failed', INTERRUPTED);
      stop.abort();
    }
    // A stopped re-render keeps the clip as it was (waitRerender's abort), with editError saying it was interrupted.
    for (const stop of this.liveRerenders.values()) stop.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue, new Promise<void>((r) => { timer = setTimeout(r, graceMs); })]);
    clearTimeout(timer);
  }
}
