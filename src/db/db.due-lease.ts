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
  /**
   * For a handler whose finishing write commits after its run returns (the outbox's group
   * commit): the row stays this process's until `settled()`. A claim that takes it again
   * meanwhile, because the clock passed the lease (a leap, a machine resumed from suspend), does
   * not run it twice: the new claim's end becomes this lease's token.
   */
  holdUntilSettled(): void;
  /** The finishing write committed or was undone: the row is no longer held. */
  settled(): void;
}

/** A lease as the due-queue holds it: extended in place, its end read at finishing time. */
export class LeaseState implements Lease {
  held = true;
  /** Held past its run until `settled()` (holdUntilSettled). */
  awaitingSettle = false;
  constructor(
    readonly id: RowId,
    public until: number,
    private readonly rows: DueRows,
    private readonly clock: Clock,
    private readonly leaseMs: number,
    private readonly onSettled: (lease: LeaseState) => void = () => {},
  ) {}

  holdUntilSettled(): void {
    this.awaitingSettle = true;
  }

  settled(): void {
    if (!this.awaitingSettle) return;
    this.awaitingSettle = false;
    this.onSettled(this);
  }

  /** This process's claim took the row again while it still held it: `until` is the token now. */
  takeOver(until: number): void {
    this.until = until;
    this.held = true;
  }

  extend(): boolean {
    if (!this.held) return false;
    const next = Math.max(this.clock.now() + this.leaseMs, this.until + 1);
    this.held = this.rows.extend(this.id, this.until, next);
    if (this.held) this.until = next;
    return this.held;
  }
}
