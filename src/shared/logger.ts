/** Log levels in increasing severity. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

/** JSON-lines logger with scope and ids. Never give it secrets or payloads. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields` (e.g. `{scope: "capture"}`). */
  child(fields: LogFields): Logger;
}

export const LOG_FORMATS = ["auto", "json", "text"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  level: LogLevel;
  /**
   * `json` (one object per line, for journald, Docker and log shippers) or `text` (for a person
   * at a terminal). `auto`: text when stdout is a terminal, JSON otherwise.
   */
  format?: LogFormat;
  /** Where each line goes; stdout unless a test wants the lines. */
  write?: (line: string) => void;
  now?: () => number;
}

/** Creates a logger writing one JSON object per line. */
export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const text = resolveFormat(options.format) === "text";
  const emit = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const time = new Date(now()).toISOString();
    if (text) return write(textLine(time, level, msg, { ...bound, ...fields }));
    const record = { time, level, msg, ...bound, ...fields };
    write(JSON.stringify(record, errorReplacer));
  };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

function resolveFormat(format: LogFormat = "json"): "json" | "text" {
  if (format !== "auto") return format;
  return process.stdout.isTTY ? "text" : "json";
}

/** `2026-01-02T03:04:05.000Z INFO  http: request method=GET status=200 …`; a stack follows. */
function textLine(time: string, level: LogLevel, msg: string, fields: LogFields): string {
  const { scope, ...rest } = fields;
  const stacks: string[] = [];
  const pairs = Object.entries(rest).map(([key, value]) => {
    if (value instanceof Error) {
      if (value.stack) stacks.push(value.stack);
      return `${key}=${quote(value.message)}`;
    }
    return `${key}=${typeof value === "string" ? quote(value) : JSON.stringify(value)}`;
  });
  const head = `${time} ${level.toUpperCase().padEnd(5)} ${scope ? `${scope}: ` : ""}${msg}`;
  return [[head, ...pairs].join(" "), ...stacks].join("\n");
}

function quote(value: string): string {
  return /^[^\s"=]*$/.test(value) && value !== "" ? value : JSON.stringify(value);
}

/** Errors serialize as {name, message, stack} instead of `{}`. */
function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error)
    return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** A logger that drops everything: for CLI commands that print their own output. */
export function createSilentLogger(): Logger {
  return createLogger({ level: "error", write: () => {} });
}
