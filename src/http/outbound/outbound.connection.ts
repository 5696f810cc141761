import type { Socket, SocketHandler } from "bun";
import { type AnswerParser, ClosedBeforeAnswerError } from "./outbound.answer.ts";

/** Where one connection goes: the checked address it is pinned to, and TLS when https. */
export interface ConnectTarget {
  /** Pool key: scheme, host and port of the URL. */
  key: string;
  address: string;
  port: number;
  /** serverName is the URL's host: the certificate is verified against it, never the address. */
  tls: { serverName: string; ca?: string } | null;
}

/** The TLS handshake failed (an untrusted or mismatched certificate, or no TLS at all). */
export class TlsError extends Error {
  readonly code = "tls_error";
  override name = "TlsError";
}

type Settle = (error: Error | null) => void;

/**
 * One HTTP/1.1 connection on a Bun socket, carrying one exchange at a time. It knows nothing of
 * pools or deadlines: the sender decides when it is reused, dropped or cut.
 */
export class OutboundConnection {
  closed = false;
  /** Set while the connection sits in the pool: the time it is closed if still unused. */
  idleUntil: number | null = null;
  /** Called when the peer closes the connection while it is idle. */
  onIdleClose: ((connection: OutboundConnection) => void) | null = null;
  /** Called when the connection is destroyed before its socket opened (the connect goes on). */
  onConnectAbandoned: (() => void) | null = null;
  private socket: Socket<OutboundConnection> | null = null;
  private parser: AnswerParser | null = null;
  private settle: Settle | null = null;
  private unwritten: Uint8Array | null = null;
  private closeError: Error | null = null;

  constructor(readonly target: ConnectTarget) {}

  /** Opens the socket; resolves once it can carry a request (after the TLS handshake). */
  open(): Promise<OutboundConnection> {
    if (this.closed) {
      // Its send ended (deadline, abort) before the connection was opened: none is opened.
      return Promise.reject(new ClosedBeforeAnswerError("the send ended before the connection"));
    }
    return new Promise((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve(this));
      const { address, port, tls } = this.target;
      const options = {
        hostname: address,
        port,
        data: this,
        socket: HANDLERS,
        ...(tls && { tls: { ...tls, rejectUnauthorized: true } }),
      };
      Bun.connect(options).catch((error: Error) => this.end(error));
    });
  }

  /** True once every byte of the last request left for the socket. */
  get written(): boolean {
    return this.unwritten === null;
  }

  /** Writes one request and feeds its answer to `parser`; settles when the answer is done. */
  exchange(bytes: Uint8Array, parser: AnswerParser): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || !this.socket) {
        reject(new ClosedBeforeAnswerError("the connection was closed"));
        return;
      }
      this.parser = parser;
      this.settle = (error) => (error ? reject(error) : resolve());
      this.socket.ref();
      this.write(bytes);
    });
  }

  /** Parks the connection between exchanges: it no longer keeps the process alive. */
  park(until: number): void {
    this.idleUntil = until;
    this.parser = null;
    this.socket?.unref();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.socket) this.socket.terminate();
    else this.onConnectAbandoned?.();
  }

  private write(bytes: Uint8Array): void {
    const sent = this.socket?.write(bytes) ?? -1;
    this.unwritten = sent >= bytes.byteLength ? null : bytes.subarray(Math.max(0, sent));
  }

  /** Settles the pending open or exchange, once. */
  private end(error: Error | null): void {
    const settle = this.settle;
    this.settle = null;
    settle?.(error);
  }

  private onOpen(socket: Socket<OutboundConnection>): void {
    this.socket = socket;
    if (this.closed) {
      // Destroyed while connecting (its send ended): the socket that came too late goes too.
      this.end(new ClosedBeforeAnswerError("the connection was closed while it opened"));
      socket.terminate();
      return;
    }
    if (!this.target.tls) this.end(null);
  }

  private onHandshake(success: boolean, error: Error | null): void {
    if (success) {
      this.end(null);
      return;
    }
    const code = (error as { code?: string } | null)?.code ?? "handshake failed";
    this.end(new TlsError(`${code}: ${error?.message ?? "the TLS handshake failed"}`));
    this.destroy();
  }

  private onData(chunk: Uint8Array): void {
    const parser = this.parser;
    if (!parser || !this.settle) {
      // Bytes nobody asked for (an idle socket): the connection's framing is lost.
      this.destroy();
      return;
    }
    try {
      parser.push(chunk);
    } catch (error) {
      // Settled first: destroying the socket runs the close handler at once.
      this.end(error as Error);
      this.destroy();
      return;
    }
    if (parser.done) this.end(null);
  }

  private onClose(error?: Error): void {
    this.closed = true;
    if (this.idleUntil !== null && !this.settle) this.onIdleClose?.(this);
    const parser = this.parser;
    if (!parser) {
      this.end(error ?? this.closeError ?? new ClosedBeforeAnswerError("the connection closed"));
      return;
    }
    try {
      parser.end();
      this.end(null);
    } catch (ended) {
      // A reset says more than "closed": keep the socket's own error when there is one.
      const reset = error ?? this.closeError;
      this.end(!parser.received && reset ? reset : (ended as Error));
    }
  }

  /** Handlers shared by every connection: Bun passes the connection as the socket's data. */
  static readonly handlers: SocketHandler<OutboundConnection> = {
    open: (socket) => socket.data.onOpen(socket),
    handshake: (socket, success, error) => socket.data.onHandshake(success, error),
    data: (socket, chunk) => socket.data.onData(chunk),
    drain: (socket) => {
      const self = socket.data;
      if (self.unwritten) self.write(self.unwritten);
    },
    error: (socket, error) => {
      socket.data.closeError = error;
    },
    connectError: (socket, error) => socket.data.end(error),
    close: (socket, error) => socket.data.onClose(error),
  };
}

const HANDLERS = OutboundConnection.handlers;
