/**
 * A real Weir server serving a fresh build of the web UI, and Debian's chromium driven by
 * playwright-core: what the browser tests, the screenshot script and the UI benchmark stand on.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { buildUi } from "../../scripts/build-ui.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import {
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from "../test-utils/test-server.ts";

/** Where Debian puts chromium; WEIR_CHROMIUM overrides it. */
export const CHROMIUM = process.env.WEIR_CHROMIUM ?? "/usr/bin/chromium";

/** What a headless chromium needs on our build machines (containers, root, no GPU, no network). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-default-apps",
  "--disable-extensions",
  "--disable-sync",
  "--metrics-recording-only",
  "--no-first-run",
  "--no-default-browser-check",
  "--mute-audio",
];

export interface UiWorld {
  server: TestServer;
  browser: Browser;
  /** Opens a page in a fresh context (its own sessionStorage), clipboard allowed. */
  newPage(options?: {
    width?: number;
    height?: number;
    colorScheme?: "light" | "dark";
  }): Promise<Page>;
  /** Gzipped size of the built UI, in bytes. */
  gzipBytes: number;
  stop(): Promise<void>;
}

/** Builds the UI into a temp dir, serves it from a test server (WEIR_UI_DIR), launches chromium. */
export async function startUiWorld(options: TestServerOptions = {}): Promise<UiWorld> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set WEIR_CHROMIUM`,
    );
  }
  const dist = makeTempDir("weir-ui-dist-");
  const files = await buildUi(join(dist.path, "dist"));
  const server = await startTestServer({
    ...options,
    config: { ui_dir: join(dist.path, "dist"), capture_rate_limit: "off", ...options.config },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const contexts: BrowserContext[] = [];
  return {
    server,
    browser,
    gzipBytes: files.reduce((sum, file) => sum + file.gzipBytes, 0),
    async newPage({ width = 1280, height = 800, colorScheme = "light" } = {}) {
      const context = await browser.newContext({
        viewport: { width, height },
        colorScheme,
        permissions: ["clipboard-read", "clipboard-write"],
      });
      contexts.push(context);
      const page = await context.newPage();
      // A step that cannot happen fails in seconds, naming what it waited for.
      page.setDefaultTimeout(10_000);
      return page;
    },
    async stop() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await server.stop();
      dist.remove();
    },
  };
}
