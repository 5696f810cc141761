import { framingOf, headerPair, InvalidResponseError, shorten } from "./outbound.fields.ts";
import type { HeaderPair } from "./outbound.headers.ts";

/**
 * An HTTP/1.1 answer read incrementally from the bytes a socket hands over (RFC 9112). Pure: no
 * socket, no timer. It keeps only what the sender records (final status, header pairs as
 * received, the first `bodyLimit` body bytes) and says whether the connection may carry another
 * request afterwards. Anything it cannot frame safely throws an `invalid_response` error.
 */
export interface AnswerLimits {
  /** The request's method: a HEAD answer has no body whatever its headers say. */
  method: string;
  /** Body bytes kept; past them the answer ends there, truncated (the socket is dropped). */
  bodyLimit: number;
  /** Bytes of status lines, header lines and trailers together (interim answers included). */
  headLimit: number;
}

export interface Answer {
  status: number;
  headers: HeaderPair[];
  body: Uint8Array;
  bodyTruncated: boolean;
}

/** The peer closed before the answer's head was complete (nothing to keep). */
export class ClosedBeforeAnswerError extends Error {
  readonly code = "connection_reset";
  override name = "ClosedBeforeAnswerError";
}

type Stage =
  | "head"
  | "length"
  | "size"
  | "chunk"
  | "chunk-end"
  | "trailers"
  | "until-close"
  | "done";

const LF = 10;
const CR = 13;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,12})[\t ]*(?:;.*)?$/;
const CHUNK_LINE_LIMIT = 4096;

export class AnswerParser {
  /** True once any byte of an answer arrived (a reused socket is then never retried). */
  received = false;
  /** True when the answer is complete (or was ended early: truncated). */
  done = false;
  /** True when the connection may carry another request once this answer is done. */
  reusable = false;
  status: number | null = null;
  /** The server's idle timeout for this connection when it announced one (Keep-Alive). */
  serverIdleMs: number | null = null;
  private headers: HeaderPair[] = [];
  private stage: Stage = "head";
  private pending: Buffer = Buffer.alloc(0);
  /** A line ended with a bare LF: read (RFC 9112 §2.2), but the socket is not trusted again. */
  private bareLf = false;
  private headBytes = 0;
  private remaining = 0;
  private kept: Uint8Array[] = [];
  private keptBytes = 0;
  private truncated = false;

  constructor(private readonly limits: AnswerLimits) {}

  /** Feeds bytes as they arrive; bytes after a complete answer make the socket unusable. */
  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.received = true;
    if (this.done) {
      this.reusable = false;
      return;
    }
    let bytes: Buffer =
      this.pending.byteLength > 0
        ? Buffer.concat([this.pending, chunk])
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.pending = Buffer.alloc(0);
    while (bytes.byteLength > 0 && !this.done) bytes = this.step(bytes);
    if (this.done && bytes.byteLength > 0) this.reusable = false;
  }

  /** The peer closed: completes a close-delimited body, keeps a cut one, or throws. */
  end(): void {
    if (this.done) return;
    if (this.stage === "head") {
      if (this.headBytes === 0 && this.pending.byteLength === 0) {
        throw new ClosedBeforeAnswerError("the connection closed before any answer");
      }
      throw new ClosedBeforeAnswerError("the connection closed in the middle of the answer's head");
    }
    this.finish(this.stage !== "until-close");
  }

  /** Ends the answer where it is (the deadline passed after the status came). */
  cut(): void {
    if (!this.done) this.finish(true);
  }

  /** The answer as far as it went; only meaningful once `status` is known. */
  result(): Answer {
    const body = this.kept.length === 1 ? (this.kept[0] as Uint8Array) : concat(this.kept);
    return {
      status: this.status ?? 0,
      headers: this.headers,
      body,
      bodyTruncated: this.truncated,
    };
  }

  /** Consumes what it can of `bytes` in the current stage; returns the rest. */
  private step(bytes: Buffer): Buffer {
    switch (this.stage) {
      case "head":
        return this.readHead(bytes);
      case "size":
        return this.readChunkSize(bytes);
      case "chunk-end":
        return this.readChunkEnd(bytes);
      case "trailers":
        return this.readTrailers(bytes);
      case "until-close":
        this.keep(bytes);
        return Buffer.alloc(0);
      default:
        return this.readCounted(bytes);
    }
  }

  private readHead(bytes: Buffer): Buffer {
    if (
      this.headBytes === 0 &&
      bytes.byteLength >= 5 &&
      bytes.toString("latin1", 0, 5) !== "HTTP/"
    ) {
      throw new InvalidResponseError("the answer is not HTTP/1.x");
    }
    const end = headEnd(bytes);
    if (end === null) {
      this.holdLine(bytes, this.limits.headLimit - this.headBytes, "answer head");
      return Buffer.alloc(0);
    }
    if (end.bodyStart - end.textEnd === 2) this.bareLf = true;
    this.headBytes += end.bodyStart;
    if (this.headBytes > this.limits.headLimit) this.tooLarge("answer head");
    this.onHead(bytes.toString("latin1", 0, end.textEnd));
    return bytes.subarray(end.bodyStart);
  }

  private onHead(text: string): void {
    const [statusLine = "", ...lines] = text.split("\n").map((line) => this.withoutCr(line));
    const match = STATUS_LINE.exec(statusLine);
    if (!match)
      throw new InvalidResponseError(`not an HTTP/1.x status line: ${shorten(statusLine)}`);
    const status = Number(match[2]);
    const headers = lines.map(headerPair);
    if (status < 200) {
      // Interim answers (100 Continue, 103 Early Hints) are skipped; 101 was never asked for.
      if (status === 101)
        throw new InvalidResponseError("101 Switching Protocols was not asked for");
      return;
    }
    this.status = status;
    this.headers = headers;
    this.frame(match[1] === "1", headers);
    if (this.bareLf) this.reusable = false;
  }

  /** A line split at LF: its CR is dropped, and a line without one marks the answer. */
  private withoutCr(line: string): string {
    if (line.endsWith("\r")) return line.slice(0, -1);
    this.bareLf = true;
    return line;
  }

  /** RFC 9112 §6.3: how the body ends, and whether the connection outlives it. */
  private frame(http11: boolean, headers: HeaderPair[]): void {
    const framing = framingOf(headers);
    this.serverIdleMs = framing.idleMs;
    this.reusable = http11 && !framing.close;
    const status = this.status as number;
    if (this.limits.method === "HEAD" || status === 204 || status === 304) {
      this.finish(false);
    } else if (framing.transferEncoding !== null) {
      // A length next to a transfer coding may be a smuggling attempt: never reuse the socket.
      if (framing.contentLength !== null) this.reusable = false;
      if (framing.transferEncoding === "chunked") this.stage = "size";
      else this.untilClose();
    } else if (framing.contentLength !== null) {
      this.remaining = framing.contentLength;
      this.stage = "length";
      if (this.remaining === 0) this.finish(false);
    } else {
      this.untilClose();
    }
  }

  private untilClose(): void {
    this.reusable = false;
    this.stage = "until-close";
  }

  /** A Content-Length body or a chunk's data. */
  private readCounted(bytes: Buffer): Buffer {
    const take = Math.min(this.remaining, bytes.byteLength);
    this.keep(bytes.subarray(0, take));
    this.remaining -= take;
    if (this.remaining === 0 && !this.done) {
      if (this.stage === "length") this.finish(false);
      else this.stage = "chunk-end";
    }
    return bytes.subarray(take);
  }

  private readChunkSize(bytes: Buffer): Buffer {
    const line = this.takeLine(bytes, CHUNK_LINE_LIMIT, "chunk size line");
    if (line === null) return Buffer.alloc(0);
    const match = CHUNK_SIZE.exec(line.text);
    if (!match) throw new InvalidResponseError(`bad chunk size line: ${shorten(line.text)}`);
    this.remaining = Number.parseInt(match[1] as string, 16);
    this.stage = this.remaining === 0 ? "trailers" : "chunk";
    return line.rest;
  }

  private readChunkEnd(bytes: Buffer): Buffer {
    if (bytes[0] === LF) {
      this.markBareLf();
      this.stage = "size";
      return bytes.subarray(1);
    }
    if (bytes[0] !== CR) throw new InvalidResponseError("a chunk did not end with CRLF");
    if (bytes.byteLength < 2) {
      this.pending = Buffer.from(bytes);
      return Buffer.alloc(0);
    }
    if (bytes[1] !== LF) throw new InvalidResponseError("a chunk did not end with CRLF");
    this.stage = "size";
    return bytes.subarray(2);
  }

  private markBareLf(): void {
    this.bareLf = true;
    this.reusable = false;
  }

  /** Trailer fields are read (bounded by the head limit) and dropped, as node:http did. */
  private readTrailers(bytes: Buffer): Buffer {
    const budget = this.limits.headLimit - this.headBytes;
    const line = this.takeLine(bytes, budget, "answer trailers");
    if (line === null) return Buffer.alloc(0);
    this.headBytes += line.length;
    if (line.text === "") this.finish(false);
    return line.rest;
  }

  /**
   * One line ended by CRLF (or a bare LF), or null (the bytes are held) when its end has not
   * come yet; `length` counts its terminator.
   */
  private takeLine(bytes: Buffer, limit: number, what: string) {
    const end = bytes.indexOf(LF);
    if (end < 0) {
      this.holdLine(bytes, limit, what);
      return null;
    }
    if (end > limit) this.tooLarge(what);
    const crlf = end > 0 && bytes[end - 1] === CR;
    if (!crlf) this.markBareLf();
    const text = bytes.toString("latin1", 0, crlf ? end - 1 : end);
    return { text, length: end + 1, rest: bytes.subarray(end + 1) };
  }

  private holdLine(bytes: Buffer, limit: number, what: string): void {
    if (bytes.byteLength > limit + 3) this.tooLarge(what);
    this.pending = Buffer.from(bytes);
  }

  private tooLarge(what: string): never {
    throw new InvalidResponseError(`${what} larger than ${this.limits.headLimit} bytes`);
  }

  /** Keeps body bytes up to the limit; one byte past it ends the answer, truncated. */
  private keep(bytes: Uint8Array): void {
    const room = this.limits.bodyLimit - this.keptBytes;
    if (bytes.byteLength > room) {
      if (room > 0) this.kept.push(new Uint8Array(bytes.subarray(0, room)));
      this.keptBytes += Math.max(0, room);
      this.finish(true);
      return;
    }
    // Copied: the socket's buffer may be reused once the data callback returns.
    this.kept.push(new Uint8Array(bytes));
    this.keptBytes += bytes.byteLength;
    if (this.stage === "length" && this.remaining > bytes.byteLength && room === bytes.byteLength) {
      // The declared length goes past the limit and the limit is reached: no need to wait.
      this.finish(true);
    }
  }

  private finish(truncated: boolean): void {
    this.done = true;
    this.truncated = truncated;
    if (truncated) this.reusable = false;
    this.stage = "done";
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 0) return new Uint8Array(0);
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * Where the head ends: the first empty line, its lines ended by CRLF or, as RFC 9112 §2.2 lets a
 * recipient accept, a bare LF (small embedded servers send them). Null until it has come.
 */
function headEnd(bytes: Buffer): { textEnd: number; bodyStart: number } | null {
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, at + 1)) {
    if (bytes[at + 1] === LF) return { textEnd: at, bodyStart: at + 2 };
    if (bytes[at + 1] === CR && bytes[at + 2] === LF) return { textEnd: at, bodyStart: at + 3 };
  }
  return null;
}
