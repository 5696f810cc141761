import { AppError, type FieldErrors, validationFailed } from "../shared/errors.ts";

export const statusPageErrors = {
  notFound: () => new AppError("not_found", 404),
  slugTaken: () => new AppError("slug_taken", 409),
  domainTaken: () => new AppError("custom_domain_taken", 409),
};

/** Throws the 422 of decisions.md §4 when any field has a problem. */
export function failIf(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}
