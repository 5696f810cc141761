// A sandbox worker that misbehaves on demand, to show the pool survives what a real worker could
// only do through an engine bug: the script "hang!" blocks the thread past any interrupt, and
// "crash!" takes the thread down. Every other run goes to the real worker code.
import type { ToWorker } from "../sandbox/sandbox.protocol.ts";

declare const self: Worker;

// Registered before the real worker's handler, so it sees each message first.
self.addEventListener("message", (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type !== "run") return;
  if (message.job.code === "hang!") for (;;) {}
  if (message.job.code === "crash!") process.exit(3);
});

await import("../sandbox/sandbox.worker.ts");
