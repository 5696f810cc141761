/**
 * A TCP address that never answers a connect, run in its own process so the test's descriptor
 * count holds only the client's sockets. Linux drops a SYN while a listener's accept queue is
 * full: a listener with a backlog of 0 whose one queued connection is never accepted leaves
 * every further connect pending (SYN retransmitted, no answer) as a black-holed address does.
 * Bun.listen accepts at once, so the socket is made through libc.
 *
 * stdin commands, one a line: `accept` (grow the backlog and accept what arrives: pending
 * connects complete at their next SYN retransmit), `close` (close the listener: pending connects
 * are refused at their next retransmit), `stats` (prints {accepted, peerClosed} as JSON).
 */
import { dlopen, FFIType, ptr, read } from "bun:ffi";

const AF_INET = 2;
const SOCK_STREAM_NONBLOCK = 1 | 0o4000;
const MSG_DONTWAIT = 0x40;
const EAGAIN = 11;
const libc = dlopen("libc.so.6", {
  socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  getsockname: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  accept: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  recv: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
  __errno_location: { args: [], returns: FFIType.ptr },
}).symbols;

const listener = libc.socket(AF_INET, SOCK_STREAM_NONBLOCK, 0);
const address = new Uint8Array(16);
address.set([AF_INET, 0, 0, 0, 127, 0, 0, 1]);
if (listener < 0 || libc.bind(listener, ptr(address), 16) !== 0 || libc.listen(listener, 0) !== 0) {
  throw new Error("black hole: cannot listen on 127.0.0.1");
}
libc.getsockname(listener, ptr(address), ptr(new Uint32Array([16])));
const port = new DataView(address.buffer).getUint16(2);

// The one connection the queue holds: from now on SYNs to the port are dropped.
const filler = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });

const accepted: number[] = [];
const peerClosed = new Set<number>();
const scratch = new Uint8Array(64);
let acceptor: ReturnType<typeof setInterval> | null = null;

function acceptAndWatch(): void {
  for (
    let fd = libc.accept(listener, null, null);
    fd >= 0;
    fd = libc.accept(listener, null, null)
  ) {
    accepted.push(fd);
  }
  for (const fd of accepted) {
    if (!peerClosed.has(fd) && clientClosed(fd)) peerClosed.add(fd);
  }
}

/** A non-blocking recv says end of stream (FIN) or fails other than "nothing yet" (reset). */
function clientClosed(fd: number): boolean {
  const received = Number(libc.recv(fd, ptr(scratch), scratch.byteLength, MSG_DONTWAIT));
  if (received === 0) return true;
  const errno = libc.__errno_location();
  return received < 0 && errno !== null && read.i32(errno) !== EAGAIN;
}

function handle(command: string): void {
  if (command === "accept" && !acceptor) {
    libc.listen(listener, 128);
    acceptor = setInterval(acceptAndWatch, 10);
  } else if (command === "close") {
    libc.close(listener);
  } else if (command === "stats") {
    acceptAndWatch();
    // The filler is accepted too but its client end stays open here.
    console.log(JSON.stringify({ accepted: accepted.length - 1, peerClosed: peerClosed.size }));
  }
}

console.log(JSON.stringify({ port }));
let pending = "";
for await (const chunk of Bun.stdin.stream()) {
  pending += new TextDecoder().decode(chunk);
  for (let at = pending.indexOf("\n"); at >= 0; at = pending.indexOf("\n")) {
    handle(pending.slice(0, at).trim());
    pending = pending.slice(at + 1);
  }
}
filler.end();
