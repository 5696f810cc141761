#!/usr/bin/env bun
/**
 * The fan-out load generator, run as its own process (pinned like wrk): opens N realtime sockets
 * that join one endpoint, then captures at a steady rate, each body carrying its send time, and
 * measures for every delivery the time from sending the capture to receiving the push.
 *
 *   bun fanout-client.ts '{"origin":"http://127.0.0.1:8080","token":"svc_…","endpointId":"…",
 *     "slug":"bench","subscribers":1000,"rate":500,"durationSec":10}'
 *
 * Prints one JSON object (FanoutResult) on stdout.
 */

export interface FanoutPlan {
  origin: string;
  token: string;
  endpointId: string;
  slug: string;
  subscribers: number;
  /** Captures per second, spread evenly over each second. */
  rate: number;
  durationSec: number;
}

export interface FanoutResult {
  /** Captures answered 200 per second of the run. */
  captureRate: number;
  captures: number;
  non2xx: number;
  captureErrors: number;
  /** Capture → push receipt, over every delivery to every subscriber (ms). */
  deliveryMs: { p50: number; p90: number; p99: number } | null;
  /** Capture request → its 200 (ms). */
  captureMs: { p50: number; p90: number; p99: number } | null;
  deliveries: number;
  expectedDeliveries: number;
  /** Sockets the server closed during the run (e.g. too far behind). */
  socketsClosed: number;
}

const now = () => performance.now();

function percentiles(values: Float64Array, count: number) {
  if (count === 0) return null;
  const sorted = values.slice(0, count).sort();
  const at = (q: number) => sorted[Math.min(count - 1, Math.floor(q * count))] ?? Number.NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/** Opens one socket and joins the endpoint; resolves once the join is answered ok. */
function subscribe(plan: FanoutPlan, onPush: (sentAt: number) => void, onClose: () => void) {
  const url = `${plan.origin.replace(/^http/, "ws")}/socket/websocket?vsn=2.0.0&token=${plan.token}`;
  const socket = new WebSocket(url);
  const topic = `debug:${plan.endpointId}`;
  let heartbeat: Timer | undefined;
  const joined = new Promise<void>((resolve, reject) => {
    socket.onopen = () => socket.send(JSON.stringify(["1", "1", topic, "phx_join", {}]));
    socket.onerror = () => reject(new Error("socket error before the join"));
    socket.onmessage = (event) => {
      const text = event.data as string;
      // Cheaper than JSON.parse on every push: the body is `{"t":<ms>}`, escaped inside the frame.
      const at = text.indexOf('\\"t\\":');
      if (at >= 0) return onPush(Number.parseFloat(text.slice(at + 6)));
      if (text.includes('"phx_reply"') && text.includes('"1","1"')) {
        if (text.includes('"ok"')) resolve();
        else reject(new Error(`join refused: ${text}`));
      }
    };
  });
  socket.onclose = () => {
    clearInterval(heartbeat);
    onClose();
  };
  heartbeat = setInterval(() => socket.send('[null,"h","phoenix","heartbeat",{}]'), 30_000);
  return { socket, joined };
}

/** Sends captures at `rate` per second for the duration; resolves when the last one is answered. */
async function captureSteadily(
  plan: FanoutPlan,
  record: (ms: number, status: number | null) => void,
) {
  const url = `${plan.origin}/w/${plan.slug}`;
  const total = Math.round(plan.rate * plan.durationSec);
  const start = now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / plan.rate;
    const wait = due - now();
    if (wait > 1) await Bun.sleep(wait);
    const sentAt = now();
    inFlight.push(
      fetch(url, {
        method: "POST",
        body: `{"t":${sentAt}}`,
        headers: { "content-type": "application/json" },
      })
        .then(async (response) => {
          await response.arrayBuffer();
          record(now() - sentAt, response.status);
        })
        .catch(() => record(Number.NaN, null)),
    );
  }
  await Promise.all(inFlight);
  return (now() - start) / 1000;
}

async function main(plan: FanoutPlan): Promise<FanoutResult> {
  const expectedCaptures = Math.round(plan.rate * plan.durationSec);
  const delivery = new Float64Array(Math.max(1, expectedCaptures * plan.subscribers));
  let deliveries = 0;
  let socketsClosed = 0;
  let measuring = true;
  const onPush = (sentAt: number) => {
    if (deliveries < delivery.length) delivery[deliveries] = now() - sentAt;
    deliveries += 1;
  };
  const sockets = [];
  // Joined in batches: a thousand simultaneous handshakes would measure connection set-up.
  for (let i = 0; i < plan.subscribers; i += 100) {
    const batch = Array.from({ length: Math.min(100, plan.subscribers - i) }, () =>
      subscribe(plan, onPush, () => {
        if (measuring) socketsClosed += 1;
      }),
    );
    await Promise.all(batch.map((s) => s.joined));
    sockets.push(...batch);
  }
  const captureMs = new Float64Array(Math.max(1, expectedCaptures));
  let captures = 0;
  let non2xx = 0;
  let captureErrors = 0;
  const elapsed = await captureSteadily(plan, (ms, status) => {
    if (status === null) captureErrors += 1;
    else if (status !== 200) non2xx += 1;
    else {
      captureMs[captures] = ms;
      captures += 1;
    }
  });
  const expectedDeliveries = captures * (plan.subscribers - socketsClosed);
  const deadline = now() + 5000;
  while (deliveries < expectedDeliveries && now() < deadline) await Bun.sleep(10);
  measuring = false;
  for (const { socket } of sockets) socket.close();
  return {
    captureRate: captures / elapsed,
    captures,
    non2xx,
    captureErrors,
    deliveryMs: percentiles(delivery, Math.min(deliveries, delivery.length)),
    captureMs: percentiles(captureMs, captures),
    deliveries,
    expectedDeliveries,
    socketsClosed,
  };
}

if (import.meta.main) {
  const plan = JSON.parse(process.argv[2] ?? "{}") as FanoutPlan;
  const result = await main(plan);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
