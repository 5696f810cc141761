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

export interface LoggerOptions {
  level: LogLevel;
  /** Where each line goes; stdout unless a test wants the lines. */
  write?: (line: string) => void;
  now?: () => number;
}

/** Creates a logger writing one JSON object per line. */
export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level);
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const emit = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record = { time: new Date(now()).toISOString(), level, msg, ...bound, ...fields };
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
