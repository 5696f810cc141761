import { AppError, validationFailed } from "../shared/errors.ts";

/** Error bodies of the endpoints room (decisions.md §4). */
export const endpointErrors = {
  notFound: () => new AppError("not_found", 404),
  limitReached: () => new AppError("endpoint_limit_reached", 403),
  slugTaken: () => new AppError("slug_taken", 409),
  slugUnchangeable: () => validationFailed({ slug: ["cannot be changed"] }),
  noForwardTarget: () =>
    validationFailed({ url: ["is required when the endpoint has no forward_url"] }),
  slugGenerationFailed: () => new AppError("slug_generation_failed", 503),
  /** The instance holds as many anonymous endpoints as it allows (decisions.md §14). */
  anonymousCapacity: () => new AppError("anonymous_capacity_reached", 503),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError("rate_limited", 429, { retry_after: retryAfterSeconds }),
};
