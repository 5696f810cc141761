/**
 * A real Weir server serving a fresh build of the web UI, and Debian's chromium driven by
 * playwright-core: what the browser tests, the screenshot script and the UI benchmark stand on.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from "playwright-core";
import { buildUi } from "../../scripts/build-ui.ts";
import type { TestAccount } from "./accounts.ts";
import { makeTempDir } from "./temp-dir.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./test-server.ts";

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
  /** CSP violations the page reported so far (every page made by newPage is watched). */
  cspViolations(page: Page): string[];
  /** Gzipped size of the built UI, in bytes. */
  gzipBytes: number;
  /** A capture as a webhook sender sends it (no browser involved); `sub` is the sub-path. */
  capture(slug: string, init?: RequestInit & { sub?: string }): Promise<Response>;
  /** An endpoint made through the API for `account`. */
  createEndpoint(account: TestAccount, name: string): Promise<{ id: string; slug: string }>;
  /** Logs `account` in through the login page (which lands on the dashboard), then opens the endpoints screen. */
  logIn(page: Page, account: Pick<TestAccount, "email" | "password">): Promise<void>;
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
  const violations = new WeakMap<Page, string[]>();
  return {
    server,
    browser,
    cspViolations: (page) => violations.get(page) ?? [],
    gzipBytes: files.reduce((sum, file) => sum + file.gzipBytes, 0),
    capture: (slug, { sub = "", ...init } = {}) => fetch(`${server.url}/w/${slug}${sub}`, init),
    async createEndpoint(account, name) {
      const response = await server.request("/api/v1/endpoints", {
        method: "POST",
        headers: { ...account.headers, "content-type": "application/json" },
        body: JSON.stringify({ debug_endpoint: { name } }),
      });
      if (response.status !== 201) throw new Error(`creating ${name}: ${response.status}`);
      return ((await response.json()) as { data: { id: string; slug: string } }).data;
    },
    async logIn(page, account) {
      await page.goto(`${server.url}/login`);
      await page.getByRole("heading", { name: "Log in to Weir" }).waitFor();
      await page.getByLabel("Email").fill(account.email);
      await page.getByLabel("Password").fill(account.password);
      await page.getByRole("button", { name: "Log in" }).click();
      // Login lands on the dashboard; the endpoints screen is one link away.
      await page.getByRole("heading", { name: "Dashboard", exact: true }).waitFor();
      await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: "Endpoints" })
        .click();
      await page.getByRole("heading", { name: "Endpoints", exact: true }).waitFor();
    },
    async newPage({ width = 1280, height = 800, colorScheme = "light" } = {}) {
      const context = await browser.newContext({
        viewport: { width, height },
        colorScheme,
        permissions: ["clipboard-read", "clipboard-write"],
      });
      contexts.push(context);
      const page = await context.newPage();
      violations.set(page, watchCsp(page));
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

const CSP_MARK = "csp-violation:";

/**
 * Collects the page's CSP violations: a `securitypolicyviolation` listener installed before any
 * page script reports each one on the console, and Chromium's own "Refused to…" console errors
 * are kept too.
 */
function watchCsp(page: Page): string[] {
  const seen: string[] = [];
  void page.addInitScript((mark: string) => {
    globalThis.addEventListener("securitypolicyviolation", (event) => {
      const e = event as unknown as { violatedDirective: string; blockedURI: string };
      console.error(`${mark} ${e.violatedDirective} ${e.blockedURI}`);
    });
  }, CSP_MARK);
  page.on("console", (message) => {
    const text = message.text();
    if (text.startsWith(CSP_MARK) || text.includes("Content Security Policy")) seen.push(text);
  });
  return seen;
}

/** Rendered text (table cells tab-separated), as a user reads it. */
// biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, not the DOM property.
export const textOf = (locator: Locator) => locator.innerText();

/** The clipboard as the page sees it (contexts grant clipboard-read). */
export const readClipboard = (page: Page) =>
  page.evaluate(() =>
    (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText(),
  );

/** Form controls without an accessible name (label, aria-label), by tag and name. */
export const unlabelledControls = (page: Page) =>
  page.locator("input, select, textarea").evaluateAll((elements) =>
    elements
      .map(
        (el) =>
          el as unknown as {
            labels: unknown[] | null;
            name: string;
            tagName: string;
            getAttribute(n: string): string | null;
          },
      )
      .filter((el) => !(el.labels?.length || el.getAttribute("aria-label")))
      .map((el) => `${el.tagName}[name=${el.name}]`),
  );

/** How far the page is wider than the viewport (0 when nothing scrolls sideways). */
export const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => {
    const root = (
      globalThis as unknown as {
        document: { documentElement: { scrollWidth: number; clientWidth: number } };
      }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
