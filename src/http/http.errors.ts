import type { ValidationError } from "elysia";
import { AppError, type FieldErrors, invalidJson, notFound } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The one error renderer: every failure of every route becomes `{error, ...}` with its status.
 * Unexpected errors become 500 with the request id; their stack goes to the log only.
 */
export function renderError(
  code: string | number,
  error: unknown,
  context: { requestId: string; logger: Logger; method: string; path: string },
): RenderedError {
  const known = toAppError(code, error);
  if (known) return { status: known.status, body: known.toBody() };
  context.logger.error("unhandled error", {
    request_id: context.requestId,
    method: context.method,
    path: context.path,
    error,
  });
  return { status: 500, body: { error: "internal_error", request_id: context.requestId } };
}

function toAppError(code: string | number, error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  switch (code) {
    case "NOT_FOUND":
      return notFound();
    case "PARSE":
      // A body refused while it was read (payload_too_large) is the cause of the parse failure.
      return (error as Error).cause instanceof AppError
        ? ((error as Error).cause as AppError)
        : invalidJson();
    case "VALIDATION":
      return new AppError("validation_failed", 422, {
        errors: fieldErrors(error as ValidationError),
      });
    default:
      return undefined;
  }
}

/** Elysia's validation errors as `{field: [message]}`; nested fields are joined with dots. */
export function fieldErrors(error: ValidationError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.all) {
    const path = "path" in issue && issue.path ? issue.path : "";
    const field = path.replace(/^\//, "").replaceAll("/", ".") || error.type;
    const message = "message" in issue && issue.message ? issue.message : "is invalid";
    const list = errors[field] ?? [];
    if (!list.includes(message)) list.push(message);
    errors[field] = list;
  }
  return errors;
}
