import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { freePort } from "../test-utils/free-port.ts";
import { readJson } from "../test-utils/json.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { connectSocket, subscribe, waitForEvents } from "../test-utils/realtime-client.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

/**
 * docs/deploy.md's nginx block, run as written in front of a real Weir: TLS (a self-signed
 * certificate), a capture, the live socket through the upgrade, the URLs handed out and the
 * client address. nginx comes from Debian (`.ci/run` installs nginx-light); without it the
 * test is skipped, saying so.
 */
const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => existsSync(path));
const OPENSSL = ["/usr/bin/openssl"].find((path) => existsSync(path));
const DOC = join(import.meta.dir, "../../docs/deploy.md");

if (!NGINX || !OPENSSL) {
  console.warn("deploy.nginx test skipped: install nginx-light and openssl to run it");
}

/** The block between the markers of docs/deploy.md, pointed at this test's Weir and files. */
function nginxSiteFromDoc(options: {
  weirPort: number;
  listenPort: number;
  cert: string;
  key: string;
}): string {
  const doc = readFileSync(DOC, "utf8");
  const block = /# weir-nginx-begin\n([\s\S]*?)# weir-nginx-end/.exec(doc)?.[1];
  if (!block) throw new Error("docs/deploy.md lost its weir-nginx-begin/end block");
  const replaced = block
    .replace("server 127.0.0.1:8080;", `server 127.0.0.1:${options.weirPort};`)
    .replace("listen 443 ssl;", `listen 127.0.0.1:${options.listenPort} ssl;`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${options.cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${options.key};`);
  for (const wanted of [String(options.weirPort), String(options.listenPort), options.cert]) {
    if (!replaced.includes(wanted)) throw new Error(`the nginx block changed shape: ${wanted}`);
  }
  return replaced;
}

/** A fetch that accepts the test's self-signed certificate. */
const insecureFetch = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, tls: { rejectUnauthorized: false } } as RequestInit);

class InsecureWebSocket extends WebSocket {
  constructor(url: string | URL) {
    super(url, { tls: { rejectUnauthorized: false } } as unknown as string[]);
  }
}

describe.skipIf(!NGINX || !OPENSSL)("nginx from docs/deploy.md in front of Weir", () => {
  let server: TestServer;
  let owner: TestAccount;
  let nginx: ReturnType<typeof Bun.spawn>;
  let publicUrl: string;
  const dir = makeTempDir("weir-nginx-");

  beforeAll(async () => {
    server = await startTestServer({ config: { trusted_proxies: ["127.0.0.1"] } });
    owner = await signUp(server, { plan: "team" });
    const cert = join(dir.path, "cert.pem");
    const key = join(dir.path, "key.pem");
    const made = Bun.spawnSync(
      [
        OPENSSL as string,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(`openssl: ${made.stderr.toString()}`);
    const listenPort = freePort();
    publicUrl = `https://127.0.0.1:${listenPort}`;
    // nginx's workers may run as nobody: the temp paths must be theirs to write.
    const temp = join(dir.path, "temp");
    mkdirSync(temp);
    chmodSync(dir.path, 0o755);
    chmodSync(temp, 0o777);
    const site = nginxSiteFromDoc({ weirPort: server.port, listenPort, cert, key });
    const conf = join(dir.path, "nginx.conf");
    writeFileSync(
      conf,
      `worker_processes 1;
pid ${join(dir.path, "nginx.pid")};
error_log ${join(dir.path, "error.log")} warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
${site}
}
`,
    );
    nginx = Bun.spawn([NGINX as string, "-c", conf, "-p", dir.path, "-g", "daemon off;"], {
      stdout: "ignore",
      stderr: "pipe",
    });
    await pollUntil(async () => (await insecureFetch(`${publicUrl}/healthz`)).ok, {
      timeoutMs: 10_000,
      what: "Weir's /healthz through nginx",
    });
  }, 30_000);

  afterAll(async () => {
    nginx?.kill("SIGTERM");
    await nginx?.exited;
    await server?.stop();
    dir.remove();
  });

  const api = (path: string, init: RequestInit = {}) =>
    insecureFetch(`${publicUrl}${path}`, {
      ...init,
      headers: { ...owner.headers, "content-type": "application/json", ...init.headers },
    });

  test("webhook_url is the proxy's https address; a capture keeps the client address and its bytes", async () => {
    const created = await api("/api/v1/endpoints", {
      method: "POST",
      body: JSON.stringify({ debug_endpoint: { name: "Via nginx", slug: "via-nginx" } }),
    });
    expect(created.status).toBe(201);
    const endpoint = (await readJson(created)).data;
    expect(endpoint.webhook_url).toBe(`${publicUrl}/w/via-nginx`);

    const socket = connectSocket(publicUrl, { token: owner.token }, "2.0.0", {
      transport: InsecureWebSocket,
    } as never);
    try {
      const live = await subscribe(socket, endpoint.id);
      expect(live.reply.status).toBe("ok");

      const body = '{"ref":"main","emoji":"\u2603"}';
      const captured = await insecureFetch(`${endpoint.webhook_url}/push?delivery=7`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
        body,
      });
      expect(captured.status).toBe(200);
      const { request_id } = await readJson(captured);

      await waitForEvents(live.events, 1);
      expect(live.events[0]).toMatchObject({ request_id, method: "POST", body });

      const stored = await readJson(await api(`/api/v1/endpoints/${endpoint.id}/requests`));
      expect(stored.data[0]).toMatchObject({
        id: request_id,
        path: "/push",
        query_string: "delivery=7",
        body,
        // nginx appended its peer (127.0.0.1, trusted); the first untrusted hop is the client.
        remote_ip: "203.0.113.9",
      });
    } finally {
      socket.disconnect();
    }
  });
});
