import { ApiError, errorText } from "./api.ts";

/** A failed write as a form shows it: per-field messages by dotted path, and a summary line. */
export function formFailure(error: unknown): { errors: Record<string, string[]>; message: string } {
  if (error instanceof ApiError)
    return {
      errors: error.fields,
      message:
        error.status === 0 || error.status >= 500
          ? `${error.message}${error.requestId ? ` (request ${error.requestId})` : ""}`
          : error.message,
    };
  return { errors: {}, message: errorText(error) };
}
