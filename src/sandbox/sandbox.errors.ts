import { AppError } from "../shared/errors.ts";

/** Every worker is busy and the queue is at its bound: the caller may retry later. */
export const sandboxBusy = (queueLimit: number) =>
  new AppError("sandbox_busy", 503, {
    message: `the script sandbox is busy: ${queueLimit} runs are already waiting for a worker`,
  });

/** The pool was closed (the server is stopping): no run starts any more. */
export const sandboxClosed = () => new Error("sandbox is closed");

/** No worker could start (e.g. the worker entry is missing from the executable). */
export const sandboxUnavailable = (reason: string) =>
  new Error(`sandbox worker failed to start: ${reason}`);
