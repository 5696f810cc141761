import { createApp, type PortOverrides, type WeirApp } from "../app.ts";
import { type AppDeps, closeDeps, createDeps, type DepsOverrides } from "../deps.ts";
import type { Config } from "../shared/config.table.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { makeTempDir } from "./temp-dir.ts";

export interface TestServer {
  url: string;
  port: number;
  deps: AppDeps;
  weir: WeirApp;
  dataDir: string;
  /** Log lines written so far (the logger is captured, not printed). */
  logs: string[];
  /** `fetch` relative to the server's URL. */
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export interface TestServerOptions extends DepsOverrides {
  config?: Partial<Config>;
  /** Ports lent in place of the rooms' own (see createApp). */
  ports?: PortOverrides;
}

/** A real Weir app on 127.0.0.1, port 0, with a temp data dir and real migrations. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = makeTempDir("weir-server-");
  const logs: string[] = [];
  const base = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  const config: Config = {
    ...base,
    host: "127.0.0.1",
    port: 0,
    durability: "normal",
    ...options.config,
  };
  const logger =
    options.logger ?? createLogger({ level: "debug", write: (line) => logs.push(line) });
  const deps = await createDeps(config, { ...options, logger });
  const weir = createApp(deps, options.ports);
  const port = weir.start({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    deps,
    weir,
    dataDir: dir.path,
    logs,
    request: (path, init) => fetch(`${url}${path}`, init),
    async stop() {
      await weir.stop();
      closeDeps(deps);
      dir.remove();
    },
  };
}
