import { AppError } from "../shared/errors.ts";

/** Error bodies of the auth room; the texts are the contract (interface.md Errors, decisions.md §2). */
export const authErrors = {
  unauthorized: () => new AppError("Invalid or missing API key", 401),
  invalidCredentials: () => new AppError("Invalid email or password", 401),
  registrationClosed: () => new AppError("registration_closed", 403),
  emailTaken: () => new AppError("email_taken", 409),
  forbidden: () => new AppError("forbidden", 403),
  jwtRequired: () => new AppError("jwt_required", 403),
  planWithoutApiKeys: () => new AppError("Your plan does not have access to this feature", 403),
  apiKeyNameRequired: () => new AppError("name is required", 400),
  apiKeyNotFound: () => new AppError("API key not found", 404),
  apiKeyCreateFailed: () => new AppError("Failed to create API key", 500),
  organizationNotFound: () => new AppError("not_found", 404),
  memberNotFound: () => new AppError("not_found", 404),
  userNotFound: () => new AppError("user_not_found", 404),
  alreadyMember: () => new AppError("already_member", 409),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError("rate_limited", 429, { retry_after: retryAfterSeconds }),
};
