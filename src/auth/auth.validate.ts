import type { FieldErrors } from "../shared/errors.ts";
import { validationFailed } from "../shared/errors.ts";
import { PLANS, type Plan, ROLES, type Role } from "./auth.model.ts";

const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1024;

/** Checks fields of account input and throws one 422 naming every bad field. */
export function assertValid(checks: Record<string, string | null>): void {
  const errors: FieldErrors = {};
  for (const [field, message] of Object.entries(checks)) {
    if (message) errors[field] = [message];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

export const emailProblem = (email: unknown): string | null =>
  typeof email === "string" && EMAIL.test(email.trim()) && email.length <= 254
    ? null
    : "must be an email address";

export const passwordProblem = (password: unknown): string | null =>
  typeof password === "string" && password.length >= PASSWORD_MIN && password.length <= PASSWORD_MAX
    ? null
    : `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;

export const nameProblem = (name: unknown): string | null =>
  typeof name === "string" && name.trim().length >= 1 && name.trim().length <= 255
    ? null
    : "must be 1 to 255 characters";

export const roleProblem = (role: unknown): string | null =>
  ROLES.includes(role as Role) ? null : `must be one of ${ROLES.join(", ")}`;

export const planProblem = (plan: unknown): string | null =>
  PLANS.includes(plan as Plan) ? null : `must be one of ${PLANS.join(", ")}`;
