// Reusable realms: the compiled form of one script kept in a worker for later runs of the same
// code, while runs stay isolated from each other. A realm is a runtime+context whose prelude ran,
// whose every reachable object was then frozen (sandbox.lockdown.ts), and in which the script
// was compiled once as the body of a factory function. A run calls the factory (the script's
// top level runs again, with new bindings) and the entry function it returns. Nothing a run
// creates is reachable from the frozen realm afterwards, so the next run starts from the same
// state; a realm whose run failed in any way, or left promise jobs behind, is disposed instead.
import type { QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";
import { LOCKDOWN_SOURCE } from "./sandbox.lockdown.ts";
import { ScriptFailure, scriptFailure } from "./sandbox.model.ts";
import type { RunJob } from "./sandbox.protocol.ts";
import { openVm, SCRIPT_FILE, unwrap, type Vm } from "./sandbox.vm.ts";

/** Realms a worker keeps; the least recently used beyond this is disposed. */
export const REALMS_PER_WORKER = 32;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export interface Realm {
  key: string;
  code: string;
  hostNames: string;
  vm: Vm;
  /** `() => entry`: runs the script's top level afresh and returns its entry function. */
  factory: QuickJSHandle;
}

const namesOf = (job: RunJob) => job.hostNames.join(",");

// The factory's header takes one line of its own, so the script's lines move by one.
const FACTORY_HEADER_LINES = 1;
const factorySource = (code: string, entry: string) =>
  `(() => {\n${code}\n;return typeof ${entry} === "function" ? ${entry} : undefined;\n})`;

/**
 * Builds the realm of `job`. The script is first compiled on its own as a global script: a
 * script that parses alone cannot close the factory's braces early, so its top-level code cannot
 * escape the per-run function into the shared realm.
 */
export function openRealm(module: QuickJSWASMModule, job: RunJob & { reuseKey: string }): Realm {
  const entry = job.entry ?? "";
  if (!IDENTIFIER.test(entry)) {
    throw new ScriptFailure(scriptFailure("a reusable script needs an entry function name"));
  }
  const vm = openVm(module, job.limits, job.hostNames);
  try {
    const { context } = vm;
    unwrap(vm, context.evalCode(job.code, SCRIPT_FILE, { type: "global", compileOnly: true }));
    const lockdown = unwrap(vm, context.evalCode(LOCKDOWN_SOURCE, "lockdown.js"));
    unwrap(vm, context.callFunction(lockdown, context.undefined));
    vm.lineOffset = FACTORY_HEADER_LINES;
    const compiled = context.evalCode(factorySource(job.code, entry), SCRIPT_FILE);
    const factory = vm.scope.manage(unwrap(vm, compiled).dup());
    vm.run.dispose();
    return { key: job.reuseKey, code: job.code, hostNames: namesOf(job), vm, factory };
  } catch (error) {
    vm.run.dispose();
    vm.scope.dispose();
    throw error;
  }
}

/** Whether `realm` was built for exactly this job's script. */
export const fitsJob = (realm: Realm, job: RunJob) =>
  realm.code === job.code && realm.hostNames === namesOf(job);

/** A worker's realms by key, least recently used first. */
export class RealmCache {
  private readonly realms = new Map<string, Realm>();

  constructor(
    private readonly capacity: number,
    private readonly dispose: (realm: Realm) => void,
  ) {}

  /** Removes and returns the realm for `job` (a run owns its realm while it runs). */
  take(job: RunJob & { reuseKey: string }): Realm | undefined {
    const realm = this.realms.get(job.reuseKey);
    if (!realm) return undefined;
    this.realms.delete(job.reuseKey);
    if (fitsJob(realm, job)) return realm;
    this.dispose(realm);
    return undefined;
  }

  /** Keeps a healthy realm after its run, evicting the least recently used past capacity. */
  keep(realm: Realm): void {
    const stale = this.realms.get(realm.key);
    if (stale && stale !== realm) this.dispose(stale);
    this.realms.delete(realm.key);
    this.realms.set(realm.key, realm);
    for (const [key, oldest] of this.realms) {
      if (this.realms.size <= this.capacity) break;
      this.realms.delete(key);
      this.dispose(oldest);
    }
  }

  get size(): number {
    return this.realms.size;
  }
}
