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
/**
 * The machine-wide settings file: the one place where an installed Weir says where its data dir
 * is, so every command (`weir admin …`, `weir backup`, run by hand or by cron) finds the
 * server's data without a flag. `WEIR_CONFIG` points elsewhere.
 */
export const SYSTEM_CONFIG_FILE = "/etc/weir/weir.toml";
const SYSTEM_CONFIG_ENV = "WEIR_CONFIG";
const KEYS = Object.keys(CONFIG_TABLE) as ConfigKey[];

/** Resolves every key by precedence flag > env > weir.toml > default, validating each. */
export function loadConfig({ flags = {}, env = process.env }: ConfigInputs = {}): LoadedConfig {
  const systemPath = env[SYSTEM_CONFIG_ENV] || SYSTEM_CONFIG_FILE;
  const system = labelled(readConfigFile(systemPath), systemPath);
  const [dataDir] = pick("data_dir", CONFIG_TABLE.data_dir, flags.data_dir, env, [system]);
  const local = labelled(readConfigFile(join(String(dataDir), CONFIG_FILE)), CONFIG_FILE);
  const config = {} as Record<ConfigKey, unknown>;
  const sources = {} as Record<ConfigKey, ConfigSource>;
  for (const key of KEYS) {
    const spec: ConfigEntry<unknown> = CONFIG_TABLE[key];
    // weir.toml lives inside the data dir, so it cannot move it; the system file can.
    const files = spec.bootstrap ? [system] : [local, system];
    [config[key], sources[key]] = pick(key, spec, flags[key], env, files);
  }
  return { config: config as Config, sources };
}

interface SettingsFile {
  values: Record<string, unknown>;
  label: string;
}

function labelled(values: Record<string, unknown>, label: string): SettingsFile {
  const unknown = Object.keys(values).filter((key) => !(key in CONFIG_TABLE));
  if (unknown.length > 0) {
    throw new ConfigError(`${label}: unknown setting ${unknown.map((k) => `"${k}"`).join(", ")}`);
  }
  return { values, label };
}

function pick(
  key: ConfigKey,
  spec: ConfigEntry<unknown>,
  flag: unknown,
  env: Record<string, string | undefined>,
  files: SettingsFile[],
): [unknown, ConfigSource] {
  const file = files.find((f) => f.values[key] !== undefined);
  const [raw, source, label]: [unknown, ConfigSource, string] =
    flag !== undefined
      ? [flag, "flag", spec.flag ?? `--${key.replaceAll("_", "-")}`]
      : env[spec.env] !== undefined
        ? [env[spec.env], "env", spec.env]
        : file !== undefined
          ? [file.values[key], "file", `${key} in ${file.label}`]
          : [undefined, "default", key];
  if (source === "default") return [spec.default, source];
  try {
    return [spec.parse(raw), source];
  } catch (error) {
    const shown = spec.secret ? "(redacted)" : JSON.stringify(raw);
    throw new ConfigError(`invalid ${key} (${label}): ${(error as Error).message}, got ${shown}`);
  }
}

function readConfigFile(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${path} cannot be read: ${(error as Error).message}`);
  }
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`${path} is not valid TOML: ${(error as Error).message}`);
  }
}

/** The effective config as [key, value, source, env, doc] rows, secrets redacted. */
export function describeConfig({ config, sources }: LoadedConfig) {
  return KEYS.map((key) => {
    const spec: ConfigEntry<unknown> = CONFIG_TABLE[key];
    const set = config[key] !== "" && config[key] !== undefined;
    const value = spec.secret && set ? (spec.shown?.(config[key]) ?? "(redacted)") : config[key];
    return { key, value, source: sources[key], env: spec.env, doc: spec.doc };
  });
}
