import type { Clock } from "../shared/clock.ts";
import type { DueRows, RowId } from "./db.due-rows.ts";

/** A worker's hold on one claimed row. */
export interface Lease {
  readonly id: RowId;
  /**
   * The lease's current end, which is also its token: the handler's finishing write is
   * `... WHERE id = ? AND locked_until = lease.until` (read it at write time: extensions move
   * it), so a worker that lost its lease cannot overwrite the row's new owner.
   */
  readonly until: number;
  /** False once an extension found the row taken over (the lease had run out). */
  readonly held: boolean;
  /** Pushes the end to now + leaseMs; false when the lease is lost. */
  extend(): boolean;
}

/** A lease as the due-queue holds it: extended in place, its end read at finishing time. */
export class LeaseState implements Lease {
  held = true;
  constructor(
    readonly id: RowId,
    public until: number,
    private readonly rows: DueRows,
    private readonly clock: Clock,
    private readonly leaseMs: number,
  ) {}

  extend(): boolean {
    if (!this.held) return false;
    const next = Math.max(this.clock.now() + this.leaseMs, this.until + 1);
    this.held = this.rows.extend(this.id, this.until, next);
    if (this.held) this.until = next;
    return this.held;
  }
}
