/** A TCP port on 127.0.0.1 that was free a moment ago: bind port 0, read it, release it. */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}
