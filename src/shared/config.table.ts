import {
  anyText,
  cidrList,
  duration,
  integer,
  nonEmpty,
  oneOf,
  optionalHttpUrl,
  optionalPostgresUrl,
  optionalSmtpUrl,
  secretKeyText,
  urlWithoutPassword,
  type Validator,
} from "./config.validators.ts";
import { LOG_FORMATS, LOG_LEVELS } from "./logger.ts";
import { DEFAULT_PLANS, type PlanTable, parsePlanTable } from "./plans.ts";

/** One configuration key: where it comes from, its default, how it is checked and what it does. */
export interface ConfigEntry<T> {
  env: string;
  default: NoInfer<T>;
  parse: Validator<T>;
  doc: string;
  /** Redacted wherever config is shown. */
  secret?: boolean;
  /** How a secret setting is shown instead of "(redacted)", e.g. a URL without its password. */
  shown?(value: T): string;
  /** The command-line flag, when it is not `--` and the key in kebab case. */
  flag?: string;
  /** Read from flags and env only: `weir.toml` lives inside the data dir, so it cannot move it. */
  bootstrap?: boolean;
}

const entry = <T>(e: ConfigEntry<T>) => e;

/**
 * Every setting of Weir. Precedence: command-line flag > environment > `weir.toml` in the data
 * dir > default. Later rooms add their keys here.
 */
export const CONFIG_TABLE = {
  data_dir: entry({
    env: "WEIR_DATA_DIR",
    default: "./weir-data",
    parse: nonEmpty,
    doc: "Directory holding weir.db, its WAL, secret.key and weir.toml.",
    bootstrap: true,
  }),
  database_url: entry({
    env: "WEIR_DATABASE_URL",
    default: "",
    parse: optionalPostgresUrl,
    doc: "PostgreSQL database shared by several Weir nodes (postgres://user:password@host:5432/weir); empty: SQLite in the data dir.",
    secret: true,
    shown: urlWithoutPassword,
    flag: "--database",
  }),
  database_pool_size: entry({
    env: "WEIR_DATABASE_POOL_SIZE",
    default: 20,
    parse: integer(1, 1000),
    doc: "Connections each node opens to PostgreSQL at most (with database_url).",
  }),
  port: entry({
    env: "WEIR_PORT",
    default: 8080,
    parse: integer(0, 65535),
    doc: "HTTP port (0 picks a free one).",
  }),
  host: entry({
    env: "WEIR_HOST",
    default: "0.0.0.0",
    parse: nonEmpty,
    doc: "Address to listen on.",
  }),
  base_url: entry({
    env: "WEIR_BASE_URL",
    default: "",
    parse: optionalHttpUrl,
    doc: "Public base of every URL Weir hands out (capture, status, UI); empty: built from each request's Host and scheme (X-Forwarded-Host/-Proto from trusted proxies).",
  }),
  log_level: entry({
    env: "WEIR_LOG_LEVEL",
    default: "info",
    parse: oneOf(LOG_LEVELS),
    doc: "Lowest level logged (on stdout, format per log_format).",
  }),
  log_format: entry({
    env: "WEIR_LOG_FORMAT",
    default: "auto",
    parse: oneOf(LOG_FORMATS),
    doc: "json (one object per line), text (for a terminal), or auto: text when stdout is a terminal, else JSON (systemd, Docker).",
  }),
  durability: entry({
    env: "WEIR_DURABILITY",
    default: "full",
    parse: oneOf(["full", "normal"] as const),
    doc: "full: an acknowledged capture survives power loss (synchronous=FULL); normal: survives a process crash.",
  }),
  max_body_bytes: entry({
    env: "WEIR_MAX_BODY_BYTES",
    default: 1_048_576,
    parse: integer(1, 1_073_741_824),
    doc: "Largest captured body; larger ones get 413.",
  }),
  max_json_bytes: entry({
    env: "WEIR_MAX_JSON_BYTES",
    default: 1_048_576,
    parse: integer(1024, 67_108_864),
    doc: "Largest body of a management (API) request; larger ones get 413 before they are read or authenticated.",
  }),
  anonymous_endpoints: entry({
    env: "WEIR_ANONYMOUS_ENDPOINTS",
    default: "on",
    parse: oneOf(["on", "off"] as const),
    doc: "off: anonymous endpoints cannot be created, and existing ones answer 404 (capture and reads).",
  }),
  anonymous_max_endpoints: entry({
    env: "WEIR_ANONYMOUS_MAX_ENDPOINTS",
    default: 1000,
    parse: integer(1, 10_000_000),
    doc: "Live anonymous endpoints the instance holds at most; creating one more answers 503.",
  }),
  anonymous_max_bytes: entry({
    env: "WEIR_ANONYMOUS_MAX_BYTES",
    default: 1_073_741_824,
    parse: integer(1_048_576, 1_099_511_627_776),
    doc: "Bytes of request bodies all anonymous endpoints together may store; past it their captures answer 503.",
  }),
  min_free_disk_mb: entry({
    env: "WEIR_MIN_FREE_DISK_MB",
    default: 256,
    parse: integer(0, 1_073_741_824),
    doc: "Below this much free space in the data dir, captures answer 507 and /healthz 503.",
  }),
  capture_rate_limit: entry({
    env: "WEIR_CAPTURE_RATE_LIMIT",
    default: "plan",
    parse: oneOf(["plan", "off"] as const),
    doc: "plan: per-endpoint token buckets sized by plan; off: no capture rate limit.",
  }),
  trusted_proxies: entry({
    env: "WEIR_TRUSTED_PROXIES",
    default: [],
    parse: cidrList,
    doc: "CIDRs whose X-Forwarded-For is believed (comma-separated).",
  }),
  registration: entry({
    env: "WEIR_REGISTRATION",
    default: "closed",
    parse: oneOf(["closed", "open"] as const),
    doc: "open: anyone may register after the first user.",
  }),
  default_plan: entry({
    env: "WEIR_DEFAULT_PLAN",
    default: "free",
    parse: oneOf(["free", "team", "enterprise"] as const),
    doc: "Plan of organizations created after the first.",
  }),
  jwt_ttl: entry({
    env: "WEIR_JWT_TTL",
    default: 86_400_000,
    parse: duration,
    doc: "Lifetime of a login token (e.g. 24h).",
  }),
  plans: entry<PlanTable>({
    env: "WEIR_PLANS",
    default: DEFAULT_PLANS,
    parse: parsePlanTable,
    doc: "Plan quota overrides: `[plans.team]` tables in weir.toml, or JSON in the env (-1 = unlimited endpoints).",
  }),
  secret_key: entry({
    env: "WEIR_SECRET_KEY",
    default: "",
    parse: secretKeyText,
    doc: "Server secret (signs tokens, encrypts secrets at rest): at least 32 bytes as hex or base64; empty: use <data_dir>/secret.key.",
    secret: true,
  }),
  metrics_token: entry({
    env: "WEIR_METRICS_TOKEN",
    default: "",
    parse: anyText,
    doc: "When set, GET /metrics requires `Authorization: Bearer <token>`; empty: /metrics is open.",
    secret: true,
  }),
  realtime_heartbeat_timeout: entry({
    env: "WEIR_REALTIME_HEARTBEAT_TIMEOUT",
    default: 60_000,
    parse: duration,
    doc: "A realtime socket that sends nothing (not even a heartbeat) for this long is closed.",
  }),
  realtime_max_buffered_bytes: entry({
    env: "WEIR_REALTIME_MAX_BUFFERED_BYTES",
    default: 4_194_304,
    parse: integer(65_536, 1_073_741_824),
    doc: "Bytes queued for one slow realtime socket before it is closed as too far behind.",
  }),
  dedup_max_keys: entry({
    env: "WEIR_DEDUP_MAX_KEYS",
    default: 1_000_000,
    parse: integer(1, 100_000_000),
    doc: "Live dedup keys (all sources together) held in memory at most, ~40 bytes each; beyond it a fresh key is not remembered: its event is accepted, a later retry of it too.",
  }),
  dedup_max_keys_per_organization: entry({
    env: "WEIR_DEDUP_MAX_KEYS_PER_ORGANIZATION",
    default: 250_000,
    parse: integer(1, 100_000_000),
    doc: "Live dedup keys one organization's sources may hold together: its share of WEIR_DEDUP_MAX_KEYS, so one organization cannot fill memory for all; beyond it that organization's fresh keys are not remembered.",
  }),
  filter_budget: entry({
    env: "WEIR_FILTER_BUDGET",
    default: 1_000_000,
    parse: integer(1_000, 1_000_000_000),
    doc: 'Element comparisons one ingested event\'s filters may make, all its destinations together (a $regex search counts 8 more plus one per character searched, a substring search one more per 128 characters); past it the event is stored failed, reason "filter budget exceeded", and delivered nowhere.',
  }),
  filter_budget_ms: entry({
    env: "WEIR_FILTER_BUDGET_MS",
    default: 200,
    parse: integer(1, 60_000),
    doc: "Wall-clock ceiling of one ingested event's filters, all its destinations together: the safety net behind filter_budget for costs its counts underrate (a pathological $regex); past it the event fails the same way. Also bounds compiling one destination's filters on save (longer: 422).",
  }),
  filter_max_terms: entry({
    env: "WEIR_FILTER_MAX_TERMS",
    default: 1000,
    parse: integer(1, 100_000),
    doc: "Terms (filter objects, paths and operators) one destination's filters may hold; more is a 422 naming the field.",
  }),
  bridge_max_destinations: entry({
    env: "WEIR_BRIDGE_MAX_DESTINATIONS",
    default: 50,
    parse: integer(1, 10_000),
    doc: "Destinations one bridge may hold; more is a 422 naming `destinations`.",
  }),
  actions_budget_ms: entry({
    env: "WEIR_ACTIONS_BUDGET_MS",
    default: 2000,
    parse: integer(1, 60_000),
    doc: "Time budget of an endpoint's action chain per capture; a capture whose chain has a modify_response waits at most this long, then gets the endpoint's own answer.",
  }),
  forward_timeout_ms: entry({
    env: "WEIR_FORWARD_TIMEOUT_MS",
    default: 30_000,
    parse: integer(1, 300_000),
    doc: "How long a forward or replay waits for the downstream answer before recording a timeout.",
  }),
  retry_base_ms: entry({
    env: "WEIR_RETRY_BASE_MS",
    default: 5000,
    parse: integer(1, 86_400_000),
    doc: "Delay before the first retry of a failed delivery; doubled per failure (±20 % jitter) up to retry_cap_ms.",
  }),
  retry_cap_ms: entry({
    env: "WEIR_RETRY_CAP_MS",
    default: 3_600_000,
    parse: integer(1, 604_800_000),
    doc: "Longest wait between two attempts of a delivery, Retry-After included.",
  }),
  breaker_open_ms: entry({
    env: "WEIR_BREAKER_OPEN_MS",
    default: 30_000,
    parse: integer(1, 86_400_000),
    doc: "How long a destination's circuit breaker stays open before one probe is let through.",
  }),
  destination_timeout_ms: entry({
    env: "WEIR_DESTINATION_TIMEOUT_MS",
    default: 30_000,
    parse: integer(1, 300_000),
    doc: "How long a delivery attempt waits for the destination's answer; slower is network_error/timeout.",
  }),
  delivery_concurrency: entry({
    env: "WEIR_DELIVERY_CONCURRENCY",
    default: 256,
    parse: integer(1, 10_000),
    doc: "Delivery attempts in flight at once in this process.",
  }),
  delivery_per_destination: entry({
    env: "WEIR_DELIVERY_PER_DESTINATION",
    default: 64,
    parse: integer(1, 10_000),
    doc: "Delivery attempts in flight at once to one destination (a slow one holds only its own slots).",
  }),
  delivery_give_way_floor: entry({
    env: "WEIR_DELIVERY_GIVE_WAY_FLOOR",
    default: 0,
    parse: integer(0, 10_000),
    doc: "Delivery attempts kept in flight while ingest saturates the process (deliveries give way to it); 0: never give way.",
  }),
  outbound_deny: entry({
    env: "WEIR_OUTBOUND_DENY",
    default: [],
    parse: cidrList,
    doc: "CIDRs no server-side request may reach, added to the built-in list (link-local, 0.0.0.0/8, multicast).",
  }),
  outbound_allow: entry({
    env: "WEIR_OUTBOUND_ALLOW",
    default: [],
    parse: cidrList,
    doc: "CIDRs server-side requests may reach even when a deny rule (built-in or configured) covers them.",
  }),
  outbound_hanging_connects: entry({
    env: "WEIR_OUTBOUND_HANGING_CONNECTS",
    default: 256,
    parse: integer(1, 1_000_000),
    doc: "Connects still pending after their request gave up (an address that never answers), in all, past which an origin with any gets no new connect.",
  }),
  outbound_hanging_connects_per_origin: entry({
    env: "WEIR_OUTBOUND_HANGING_CONNECTS_PER_ORIGIN",
    default: 16,
    parse: integer(1, 1_000_000),
    doc: "Connects still pending after their request gave up, to one origin, past which it gets no new connect: its requests fail at once as timeouts.",
  }),
  sandbox_timeout_ms: entry({
    env: "WEIR_SANDBOX_TIMEOUT_MS",
    default: 1000,
    parse: integer(1, 60_000),
    doc: "CPU-time limit of one user script.",
  }),
  ui_dir: entry({
    env: "WEIR_UI_DIR",
    default: "",
    parse: anyText,
    doc: "Serve the web UI from this directory (a ui/dist build) instead of the embedded copy.",
  }),
  telegram_api_base: entry({
    env: "WEIR_TELEGRAM_API_BASE",
    default: "https://api.telegram.org",
    parse: optionalHttpUrl,
    doc: "Base of the Telegram Bot API that telegram destinations and alerts post to (tests point it at a local server).",
  }),
  sandbox_memory_mb: entry({
    env: "WEIR_SANDBOX_MEMORY_MB",
    default: 32,
    parse: integer(1, 1024),
    doc: "Memory limit of one user script.",
  }),
  sandbox_workers: entry({
    env: "WEIR_SANDBOX_WORKERS",
    default: 2,
    parse: integer(1, 64),
    doc: "Worker threads that run user scripts off the main event loop (started on first use).",
  }),
  sandbox_queue_limit: entry({
    env: "WEIR_SANDBOX_QUEUE_LIMIT",
    default: 256,
    parse: integer(1, 100_000),
    doc: "Scripts of one organization that may wait for a busy sandbox worker; past it its next run is refused as busy.",
  }),
  monitor_concurrency: entry({
    env: "WEIR_MONITOR_CONCURRENCY",
    default: 64,
    parse: integer(1, 10_000),
    doc: "Monitor checks in flight at once (a slow target holds one slot until its timeout).",
  }),
  monitor_per_organization: entry({
    env: "WEIR_MONITOR_PER_ORGANIZATION",
    default: 16,
    parse: integer(1, 10_000),
    doc: "Monitor checks of one organization in flight at once: its share when the slots are contended.",
  }),
  dns_resolver: entry({
    env: "WEIR_DNS_RESOLVER",
    default: "",
    parse: anyText,
    doc: "DNS server (`host` or `host:port`) that dns monitors ask; empty: the system's resolvers.",
  }),
  smtp_url: entry({
    env: "WEIR_SMTP_URL",
    default: "",
    parse: optionalSmtpUrl,
    doc: "Mail server of email alert channels: smtps://user:password@host:465 (TLS) or smtp://…:587 (STARTTLS when offered); empty: no email channels.",
    secret: true,
  }),
  smtp_from: entry({
    env: "WEIR_SMTP_FROM",
    default: "",
    parse: anyText,
    doc: "Sender address of alert mail, e.g. `Weir <weir@example.com>` (required with smtp_url).",
  }),
} as const;

export type ConfigKey = keyof typeof CONFIG_TABLE;
export type Config = {
  -readonly [K in ConfigKey]: (typeof CONFIG_TABLE)[K] extends ConfigEntry<infer T> ? T : never;
};
