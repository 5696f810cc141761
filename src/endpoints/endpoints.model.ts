/** Lifecycle state of a debug endpoint (interface.md, States: paused → capture answers 404). */
export type EndpointStatus = "active" | "paused";

/** What an endpoint answers to senders instead of the default 200 (decisions.md §6, §12). */
export interface CustomResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
}

/** One debug endpoint as the rooms see it; anonymous ones have no organization. */
export interface Endpoint {
  id: string;
  organizationId: string | null;
  name: string;
  slug: string;
  status: EndpointStatus;
  /** null: the default answer `{message, request_id}`. */
  response: CustomResponse | null;
  forwardUrl: string | null;
  anonymousTokenHash: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}
