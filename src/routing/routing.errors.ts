import { AppError } from "../shared/errors.ts";

/** Error bodies of the routing room that are neither a 404 nor a 422. */
export const routingErrors = {
  /** Another source of the organization has the name (decisions §15). */
  sourceNameTaken: () => new AppError("name_taken", 409),
};
