/** One captured request as stored (decisions.md §6): what the bus carries after the commit. */
export interface CapturedRequest {
  id: string;
  endpointId: string;
  method: string;
  /** Sub-path after the slug ("" when none). */
  path: string;
  /** Query string without the leading "?" ("" when none). */
  queryString: string;
  /** Lowercased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** [name, value] pairs in the order received, names as sent. */
  rawHeaders: [string, string][];
  /** The body exactly as received. */
  body: Uint8Array;
  contentType: string | null;
  size: number;
  remoteIp: string | null;
  /** Status code answered to the sender. */
  status: number;
  createdAt: string;
}

/** The endpoint a request was captured on, as the bus subscribers need it. */
export interface CaptureTarget {
  id: string;
  organizationId: string | null;
  slug: string;
  forwardUrl: string | null;
}
