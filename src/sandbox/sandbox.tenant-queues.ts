/**
 * Waiting runs, one queue per tenant, taken in turn (round robin). A tenant that had nothing
 * waiting is served before the tenants already in rotation: its run waits only for the runs in
 * the workers and the other newcomers' first runs, never for another tenant's backlog, so forty
 * runs of one tenant hold another's single run for at most one run's CPU limit. Within a tenant,
 * first in first out.
 */
export function createTenantQueues<Job>() {
  const queues = new Map<string, Job[]>();
  /** Tenants whose first waiting run has not been served yet, in arrival order. */
  const newcomers: string[] = [];
  /** Tenants served at least once with runs still waiting, the next to be served first. */
  const rotation: string[] = [];
  let size = 0;
  return {
    push(tenant: string, job: Job): void {
      const own = queues.get(tenant);
      if (own) own.push(job);
      else {
        queues.set(tenant, [job]);
        newcomers.push(tenant);
      }
      size += 1;
    },
    /** The next run: a newcomer's first, else the first of the tenant whose turn it is. */
    shift(): Job | undefined {
      const tenant = newcomers.shift() ?? rotation.shift();
      if (tenant === undefined) return undefined;
      const own = queues.get(tenant) ?? [];
      const job = own.shift();
      if (own.length > 0) rotation.push(tenant);
      else queues.delete(tenant);
      size -= 1;
      return job;
    },
    /** Runs of `tenant` waiting now. */
    waiting: (tenant: string) => queues.get(tenant)?.length ?? 0,
    size: () => size,
    /** Every waiting run, removed (close, a worker that cannot start). */
    drain(): Job[] {
      const all = [...queues.values()].flat();
      queues.clear();
      newcomers.length = 0;
      rotation.length = 0;
      size = 0;
      return all;
    },
  };
}
