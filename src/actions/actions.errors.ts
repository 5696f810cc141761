import { AppError, validationFailed } from "../shared/errors.ts";

/** Error bodies of the actions room (interface.md, Errors; decisions.md §4). */
export const actionErrors = {
  notFound: () => new AppError("not_found", 404),
  /** The organization's plan has no automations (decisions.md §3: free). */
  featureNotAvailable: () => new AppError("feature_not_available", 403),
  limitReached: () => new AppError("action_limit_reached", 403),
  badOrder: (message: string) => validationFailed({ action_ids: [message] }),
};
