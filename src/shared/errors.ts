/** Field name → messages, the `errors` member of a 422 body (decisions.md §4). */
export type FieldErrors = Record<string, string[]>;

/**
 * The one error type of Weir. `code` is the `error` string of the JSON body; `status` the HTTP
 * status; `details` extra members of the body (e.g. `errors` for validation failures).
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code);
    this.name = "AppError";
  }

  /** The JSON body a client sees. */
  toBody(): Record<string, unknown> {
    return { error: this.code, ...this.details };
  }
}

export const notFound = (code = "not_found") => new AppError(code, 404);
export const badRequest = (code: string) => new AppError(code, 400);
export const forbidden = (code = "forbidden") => new AppError(code, 403);
export const conflict = (code: string) => new AppError(code, 409);
/** 409 `in_use`: deleting it would break what `used_by` names (decisions.md §15). */
export const inUse = (usedBy: readonly object[]) =>
  new AppError("in_use", 409, { used_by: usedBy });
export const invalidJson = () => new AppError("invalid_json", 400);
export const validationFailed = (errors: FieldErrors) =>
  new AppError("validation_failed", 422, { errors });
