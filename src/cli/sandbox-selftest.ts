import type { Command } from "commander";
import { createSandbox, type Sandbox } from "../sandbox/sandbox.runner.ts";
import { action, fail, printJson } from "./cli.common.ts";

/**
 * `weir sandbox-selftest` (hidden): proves the QuickJS sandbox loads in its worker thread, calls
 * back into the host, enforces its CPU limit and reuses a frozen realm without carrying state
 * over, inside this very executable. The binary smoke test relies on it; operators may use it too.
 */
export function registerSandboxSelftest(program: Command): void {
  program
    .command("sandbox-selftest", { hidden: true })
    .description("run a script and an endless loop in the sandbox of this executable")
    .option("--json", "print the result as JSON")
    .action(action(selftest));
}

async function selftest(flags: { json?: boolean }): Promise<void> {
  const sandbox = createSandbox({
    limits: { cpuMs: 1000, memoryBytes: 16 * 1024 * 1024 },
    workers: 1,
    queueLimit: 2,
  });
  try {
    const run = await sandbox.runScript({
      code: `async function transform(x) {
        console.log('hi');
        return { sum: x.a + x.b, doubled: await double(x.a + x.b) };
      }`,
      entry: "transform",
      input: { a: 1, b: 2 },
      hostFunctions: { double: (n) => Number(n) * 2 },
    });
    const loop = await sandbox.runScript({ code: "while (true) {}", limits: { cpuMs: 50 } });
    const result = run.ok ? run.output : null;
    const timeoutKind = loop.ok ? null : loop.error.kind;
    const inWorker = sandbox.stats().runsInWorkers === 2;
    const realmReused = await reusedRealmIsClean(sandbox);
    const ok =
      JSON.stringify(result) === '{"sum":3,"doubled":6}' &&
      timeoutKind === "timeout" &&
      inWorker &&
      realmReused;
    if (flags.json) {
      printJson({
        ok,
        result,
        timeout_kind: timeoutKind,
        in_worker: inWorker,
        realm_reused: realmReused,
        logs: run.logs,
      });
    } else console.log(ok ? "sandbox ok" : "sandbox FAILED");
    if (!ok) fail("sandbox self-test failed");
  } finally {
    sandbox.close();
  }
}

/** Two runs of one reusable script: the second reuses the realm and sees nothing of the first. */
async function reusedRealmIsClean(sandbox: Sandbox): Promise<boolean> {
  const request = {
    code: `let runs = 0;
      function check() {
        runs += 1;
        const seen = runs + "/" + typeof leaked + "/" + Object.isFrozen(Array.prototype);
        try { globalThis.leaked = 1; } catch {}
        return seen;
      }`,
    entry: "check",
    reuseKey: "selftest",
  };
  const first = await sandbox.runScript(request);
  const second = await sandbox.runScript(request);
  const clean = [first, second].every((r) => r.ok && r.output === "1/undefined/true");
  return clean && sandbox.stats().reusedRuns === 1;
}
