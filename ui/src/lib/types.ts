/**
 * Shapes of the API the UI reads. They are the server's own answer types (each presenter exports
 * the type of what it returns), imported type-only: nothing of the server is bundled, and a field
 * renamed on the server fails `tsc -p ui` instead of the UI at run time.
 */

import type { ActionResult } from "../../../src/actions/actions.model.ts";
import type { MembershipJson, UserJson } from "../../../src/auth/accounts.service.ts";
import type { ApiKeyJson } from "../../../src/auth/api-keys.service.ts";
import type { MemberJson } from "../../../src/auth/members.service.ts";
import type { CapturedRequestJson } from "../../../src/capture/requests.present.ts";
import type { GenericPage } from "../../../src/db/db.pagination.ts";
import type { ForwardJson } from "../../../src/delivery/forwards.present.ts";
import type { CustomResponseJson, EndpointJson } from "../../../src/endpoints/endpoints.present.ts";

export type Organization = MembershipJson;
export type Role = Organization["role"];
export type Plan = Organization["plan"];
/** What an organization's plan allows; `null` endpoints means unlimited (decisions.md §3). */
export type PlanLimits = Organization["limits"];
export type User = Pick<UserJson, "id" | "email">;

/** `GET /api/v1/me`. */
export interface Me {
  user: User | null;
  organizations: Organization[];
  auth_method: "jwt" | "api_key";
}

export type CustomResponse = CustomResponseJson;
export type Endpoint = EndpointJson;
export type CapturedRequest = CapturedRequestJson;
export type HeaderPair = [string, string];

/** A list row: a full request, or the summary a live event carries until the full one is read. */
export interface RequestRow extends CapturedRequest {
  /** True while only the live event's fields are known (no path, query or raw headers yet). */
  partial?: boolean;
  /** The live event cut the body; the full one comes from the API. */
  body_truncated?: boolean;
}

/** The `webhook_received` payload (decisions.md §7, plus the optional fields of a cut body). */
export interface WebhookReceived {
  request_id: string;
  endpoint_id: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  status: string;
  timestamp: string;
  body_encoding?: "base64";
  body_truncated?: boolean;
  body_size?: number;
}

export type ForwardRecord = ForwardJson;
export type Page<T> = GenericPage<T>;
export type { ActionResult };
export type ApiKey = ApiKeyJson;
export type Member = MemberJson;

/** The realtime `actions_completed` message: a capture's action run. */
export interface ActionsCompleted {
  request_id: string;
  results: ActionResult[];
}
