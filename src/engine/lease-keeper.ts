// The process's side of leases (issue 22): one owner id per process start, and a heartbeat that renews every
// lease this process holds every third of the TTL. A lease that cannot be renewed was taken over by another
// owner (this process stalled past the TTL: SIGSTOP, a long pause): the work holding it is aborted with
// LeaseLost and stops without a finishing write.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { LeaseLost, leaseName, type Lease, type LeaseKey, type LeaseStore } from '../ports/leases.js';
import { setting } from '../settings.js';

/**
 * This process start's owner id. The pid alone is not unique: two containers on one volume run their
 * servers as pid 1 in their own PID namespaces, and a restarted container gets the same pid again.
 */
export const PROCESS_OWNER = `${os.hostname()}:${process.pid}:${randomUUID()}`;

/** SHORTS_LEASE_TTL (seconds, default 30) in milliseconds. */
export function leaseTtlMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = setting('SHORTS_LEASE_TTL', env);
  const sec = raw === undefined ? 30 : Number(raw);
  if (!Number.isFinite(sec) || sec <= 0) throw new Error(`SHORTS_LEASE_TTL must be a number of seconds above 0 (got "${raw}")`);
  return sec * 1000;
}

interface Held { lease: Lease; controllers: Set<AbortController> }

export class LeaseKeeper {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(readonly leases: LeaseStore, readonly owner: string = PROCESS_OWNER, readonly ttlMs: number = leaseTtlMs()) {}

  /**
   * Takes a key for this process and keeps it renewed until released; `controller` (the work holding it) is
   * aborted with LeaseLost when another owner takes it over. Null when another live owner holds it.
   */
  async acquire(key: LeaseKey, controller?: AbortController): Promise<Lease | null> {
    const lease = await this.leases.acquire(key, this.owner, this.ttlMs);
    if (!lease) return null;
    const name = leaseName(key);
    const held = this.held.get(name);
    if (held && held.lease.token === lease.token) held.lease = lease;
    else this.held.set(name, { lease, controllers: new Set() });
    if (controller) this.attach(lease, controller);
    this.startBeating();
    return lease;
  }

  /** Has `controller` aborted (LeaseLost) if this lease is lost. */
  attach(lease: Lease, controller: AbortController): void {
    const held = this.held.get(leaseName(lease.key));
    if (!held || held.lease.token !== lease.token) controller.abort(new LeaseLost(lease.key));
    else held.controllers.add(controller);
  }

  /** The lease this process holds on a key, if any. */
  current(key: LeaseKey): Lease | undefined {
    return this.held.get(leaseName(key))?.lease;
  }

  /**
   * Whether this process still holds a lease (renewing it on the way): false once another owner took it over,
   * e.g. after the work's finishing write was refused. Tells whether the follow-ups (webhook, refund) are ours.
   */
  async confirm(lease: Lease): Promise<boolean> {
    return (await this.leases.renew(lease, this.ttlMs).catch(() => null)) !== null;
  }

  /** Gives a lease back (the work is finished, or stopped cleanly): another owner may take it at once. */
  async release(lease: Lease): Promise<void> {
    const name = leaseName(lease.key);
    const held = this.held.get(name);
    if (held && held.lease.token === lease.token) this.held.delete(name);
    if (this.held.size === 0) this.stopBeating();
    await this.leases.release(lease).catch(() => false);
  }

  /** Releases every lease this process holds (a clean stop). */
  async releaseAll(): Promise<void> {
    const all = [...this.held.values()].map((h) => h.lease);
    this.held.clear();
    this.stopBeating();
    // Every release is started before the first await (a synchronous store has them written by the time this returns its promise).
    await Promise.all(all.map((l) => this.leases.release(l).catch(() => false)));
  }

  private startBeating(): void {
    if (this.timer) return;
    this.timer = setInterval(() => { if (!this.beating) this.beating = this.beat().finally(() => { this.beating = null; }); }, Math.max(50, this.ttlMs / 3));
    this.timer.unref();
  }

  private stopBeating(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One heartbeat: renews every held lease; one taken over aborts the work holding it. */
  private async beat(): Promise<void> {
    for (const [name, held] of [...this.held]) {
      let renewed: Lease | null;
      try {
        renewed = await this.leases.renew(held.lease, this.ttlMs);
      } catch {
        continue; // the store is busy or unreachable: try again at the next beat, the lease may still be ours
      }
      if (this.held.get(name) !== held) continue; // released meanwhile
      if (renewed) {
        held.lease = renewed;
        continue;
      }
      this.held.delete(name);
      for (const c of held.controllers) c.abort(new LeaseLost(held.lease.key));
    }
    if (this.held.size === 0) this.stopBeating();
  }
}
