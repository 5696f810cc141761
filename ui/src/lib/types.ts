/** Shapes of the API the UI reads (interface.md, decisions.md §2, §5, §6, §7). */

export type Role = "owner" | "admin" | "member";
export type Plan = "free" | "team" | "enterprise";

export interface User {
  id: string;
  email: string;
}

/** What an organization's plan allows; `null` endpoints means unlimited (decisions.md §3). */
export interface PlanLimits {
  debug_endpoints: number | null;
  retention_days: number;
  realtime: boolean;
  api_keys: boolean;
  capture_rate_per_second: number;
  capture_burst: number;
}

export interface Organization {
  id: string;
  name: string;
  role: Role;
  plan: Plan;
  /** The effective quotas of the plan, as the server applies them. */
  limits: PlanLimits;
}

export interface Me {
  user: User | null;
  organizations: Organization[];
  auth_method: "jwt" | "api_key";
}

export interface CustomResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delay_ms?: number;
}

export interface Endpoint {
  id: string;
  name: string;
  slug: string;
  status: "active" | "paused";
  webhook_url: string;
  inserted_at: string;
  updated_at: string;
  request_count?: number;
  last_request_at?: string | null;
  forward_url?: string | null;
  response?: CustomResponse | null;
}

export type HeaderPair = [string, string];

export interface CapturedRequest {
  id: string;
  method: string;
  path: string;
  query_string: string;
  headers: Record<string, string>;
  raw_headers: HeaderPair[];
  body: string;
  body_encoding: "utf8" | "base64";
  content_type: string | null;
  size: number;
  remote_ip: string | null;
  status: string | number;
  created_at: string;
}

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

export interface ForwardRecord {
  id: string;
  request_id: string;
  url: string;
  method: string;
  status_code: number | null;
  response_headers: Record<string, string> | HeaderPair[] | null;
  response_body: string | null;
  latency_ms: number | null;
  error: string | null;
  attempt: number;
  created_at: string;
}

export interface Page<T> {
  data: T[];
  page: number;
  page_size: number;
  total: number;
}

export interface ApiKey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  key?: string;
}

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
}
