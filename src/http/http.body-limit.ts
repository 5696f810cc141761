import { AppError } from "../shared/errors.ts";

const EMPTY = new Uint8Array(0);

/**
 * The request-size limit handed to Bun.serve. Bun answers a bare, non-JSON 413 (and closes the
 * connection) past it, before any handler runs, so it sits above every limit Weir enforces
 * itself: each oversized request, whatever its size, gets Weir's JSON 413 (decisions.md §14).
 */
export const SERVER_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

/** The one refusal of an oversized request body. */
export const payloadTooLarge = () => new AppError("payload_too_large", 413);

/**
 * Reads the raw body, refusing it (null) once it is larger than `max`: at once when its
 * Content-Length (`declared`) says so, else while streaming a chunked body, without buffering
 * the excess.
 */
export async function readBoundedBody(
  request: Request,
  declared: string | null | undefined,
  max: number,
): Promise<Uint8Array | null> {
  if (declared !== undefined && declared !== null) {
    return Number(declared) > max ? null : request.bytes();
  }
  if (request.body === null) return EMPTY;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
}

/**
 * Holds a management request's body to `max` bytes before anything parses it or authenticates
 * the caller: a declared Content-Length over it is refused at once (the body is never read);
 * a chunked body is read through a counting reader that stops at the limit. The parsers Elysia
 * calls (`json`, `text`, ...) are replaced on the request itself, so its identity (request ids,
 * the socket peer) is kept.
 */
export function limitRequestBody(request: Request, max: number): void {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > max) throw payloadTooLarge();
    return;
  }
  if (request.body === null) return;
  let bytes: Promise<Uint8Array> | undefined;
  const read = () => {
    bytes ??= readBoundedBody(request, null, max).then((body) => {
      if (body === null) throw payloadTooLarge();
      return body;
    });
    return bytes;
  };
  const decode = async () => new TextDecoder().decode(await read());
  const asResponse = async () =>
    new Response(await read(), {
      headers: { "content-type": request.headers.get("content-type") ?? "" },
    });
  Object.defineProperties(request, {
    bytes: { value: read },
    arrayBuffer: { value: async () => (await read()).slice().buffer },
    text: { value: decode },
    json: { value: async () => JSON.parse(await decode()) },
    formData: { value: async () => (await asResponse()).formData() },
    blob: { value: async () => (await asResponse()).blob() },
  });
}
