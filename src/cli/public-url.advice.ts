import { hostname } from "node:os";

/** What `weir serve` says at start and `weir doctor` checks about the URLs Weir hands out. */
export interface PublicUrlAdvice {
  /** Where a person opens the UI. */
  uiUrl: string;
  /** How to set base_url, when the operator should hear about it. */
  note?: string;
  /** The note is a mistake (a loopback base_url seen from other machines), not a reminder. */
  problem: boolean;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;
const ALL_INTERFACES = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * `base_url` unset is fine on its own (URLs follow each request's Host), but on a server that
 * listens on every interface the operator should know the choice exists; a loopback base_url
 * there is a mistake: every sender off this machine gets a URL pointing at itself.
 */
export function publicUrlAdvice(settings: {
  base_url: string;
  host: string;
  port: number;
  machineName?: string;
}): PublicUrlAdvice {
  const everywhere = ALL_INTERFACES.has(settings.host);
  const name = everywhere ? (settings.machineName ?? hostname()) : settings.host;
  const local = `http://${name.includes(":") ? `[${name}]` : name}:${settings.port}`;
  const example = `WEIR_BASE_URL=https://hooks.example.com (or --base-url, or base_url in weir.toml)`;
  if (settings.base_url !== "") {
    const host = new URL(settings.base_url).host;
    const note =
      everywhere && LOOPBACK.test(host)
        ? `base_url ${settings.base_url} is a loopback address while Weir listens on every interface: senders on other machines get URLs they cannot reach; set ${example.replace("https://hooks.example.com", local)}`
        : undefined;
    return { uiUrl: settings.base_url, note, problem: note !== undefined };
  }
  if (!everywhere) return { uiUrl: local, problem: false };
  return {
    uiUrl: local,
    problem: false,
    note: `base_url is not set: each URL Weir hands out uses the address its visitor typed (a visitor on localhost gets localhost URLs); to fix one public address, set ${example}`,
  };
}
