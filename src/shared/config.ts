import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_TABLE, type Config, type ConfigEntry, type ConfigKey } from "./config.table.ts";

/** Where a config value came from, for `weir config print`. */
export type ConfigSource = "flag" | "env" | "file" | "default";

export interface LoadedConfig {
  config: Config;
  sources: Record<ConfigKey, ConfigSource>;
}

/** A bad setting; the message names the key and its env var and is fit for a one-line exit. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ConfigInputs {
  /** Values from command-line flags, by config key (undefined = not given). */
  flags?: Partial<Record<ConfigKey, unknown>>;
  env?: Record<string, string | undefined>;
}

export const CONFIG_FILE = "weir.toml";
const KEYS = Object.keys(CONFIG_TABLE) as ConfigKey[];

/** Resolves every key by precedence flag > env > weir.toml > default, validating each. */
export function loadConfig({ flags = {}, env = process.env }: ConfigInputs = {}): LoadedConfig {
  const resolve = (key: ConfigKey, file: Record<string, unknown>) =>
    pick(key, CONFIG_TABLE[key], flags[key], env, file);
  const [dataDir] = resolve("data_dir", {});
  const file = readConfigFile(String(dataDir));
  const unknown = Object.keys(file).filter((key) => !(key in CONFIG_TABLE));
  if (unknown.length > 0) {
    throw new ConfigError(
      `${CONFIG_FILE}: unknown setting ${unknown.map((k) => `"${k}"`).join(", ")}`,
    );
  }
  const config = {} as Record<ConfigKey, unknown>;
  const sources = {} as Record<ConfigKey, ConfigSource>;
  for (const key of KEYS) {
    [config[key], sources[key]] = resolve(key, file);
  }
  const typed = config as Config;
  if (typed.base_url === "") typed.base_url = `http://localhost:${typed.port}`;
  return { config: typed, sources };
}

function pick(
  key: ConfigKey,
  spec: ConfigEntry<unknown>,
  flag: unknown,
  env: Record<string, string | undefined>,
  file: Record<string, unknown>,
): [unknown, ConfigSource] {
  const fromFile = spec.bootstrap ? undefined : file[key];
  const [raw, source, label]: [unknown, ConfigSource, string] =
    flag !== undefined
      ? [flag, "flag", `--${key.replaceAll("_", "-")}`]
      : env[spec.env] !== undefined
        ? [env[spec.env], "env", spec.env]
        : fromFile !== undefined
          ? [fromFile, "file", `${key} in ${CONFIG_FILE}`]
          : [undefined, "default", key];
  if (source === "default") return [spec.default, source];
  try {
    return [spec.parse(raw), source];
  } catch (error) {
    const shown = spec.secret ? "(redacted)" : JSON.stringify(raw);
    throw new ConfigError(`invalid ${key} (${label}): ${(error as Error).message}, got ${shown}`);
  }
}

function readConfigFile(dataDir: string): Record<string, unknown> {
  const path = join(dataDir, CONFIG_FILE);
  if (!existsSync(path)) return {};
  try {
    return Bun.TOML.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`${path} is not valid TOML: ${(error as Error).message}`);
  }
}

/** The effective config as [key, value, source, env, doc] rows, secrets redacted. */
export function describeConfig({ config, sources }: LoadedConfig) {
  return KEYS.map((key) => {
    const spec: ConfigEntry<unknown> = CONFIG_TABLE[key];
    const set = config[key] !== "" && config[key] !== undefined;
    const value = spec.secret && set ? "(redacted)" : config[key];
    return { key, value, source: sources[key], env: spec.env, doc: spec.doc };
  });
}
