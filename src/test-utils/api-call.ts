export interface ApiAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions inspect arbitrary JSON shapes.
  body: any;
}

/**
 * One JSON call to a test server: `body` is sent as JSON when given (not with GET/HEAD); the answer's body is
 * parsed when it is JSON, else kept as text (null when empty).
 */
export async function apiCall(
  server: { url: string },
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  // GET and HEAD carry no body, so scenario tables may share one body across methods.
  const sendBody = options.body !== undefined && method !== "GET" && method !== "HEAD";
  if (sendBody) headers["content-type"] ??= "application/json";
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: sendBody ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.includes("json");
  return {
    status: response.status,
    headers: response.headers,
    body: text === "" ? null : isJson ? JSON.parse(text) : text,
  };
}
