import { SESSION_HEADERS } from "../endpoints/endpoints.model.ts";
import { isHttpUrl } from "../endpoints/endpoints.validate.ts";
import { validateFilters } from "../routing/filters.model.ts";
import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import { ACTION_TYPES, type ActionType, conditionFilter, NAME_MAX } from "./actions.model.ts";
import { configSchemaErrors } from "./actions.schemas.ts";

/** The outbound address policy's save-time verdict on a URL (decisions.md §14): null when fine. */
export type UrlCheck = (url: string) => string | null;

export interface ActionFields {
  type: ActionType;
  name: string;
  config: Record<string, unknown>;
  enabled: boolean;
}

export type ActionChanges = Partial<Omit<ActionFields, "type">>;

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Weir owns these in every capture answer: framing, and the safety headers of §14. */
const OWNED_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "x-content-type-options",
  "content-security-policy",
]);

/** Checks a create body; throws 422 naming every bad field (`type`, `name`, `config.<field>`). */
export function validateNewAction(body: unknown, checkUrl: UrlCheck): ActionFields {
  const fields = isRecord(body) ? body : {};
  const errors: FieldErrors = {};
  const type = fields.type;
  if (!ACTION_TYPES.includes(type as ActionType)) {
    errors.type = [`must be one of ${ACTION_TYPES.join(", ")}`];
  }
  const name = readName(fields.name, errors, true);
  const enabled = readEnabled(fields.enabled, errors);
  if (fields.config === undefined) errors.config = ["is required"];
  else if (!errors.type)
    Object.assign(errors, configErrors(type as ActionType, fields.config, checkUrl));
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    type: type as ActionType,
    name: name as string,
    config: fields.config as Record<string, unknown>,
    enabled: enabled ?? true,
  };
}

/** Checks an update of an action of `type`; throws 422 naming every bad field. */
export function validateActionChanges(
  body: unknown,
  type: ActionType,
  checkUrl: UrlCheck,
): ActionChanges {
  const fields = isRecord(body) ? body : {};
  const errors: FieldErrors = {};
  if (fields.type !== undefined && fields.type !== type) errors.type = ["cannot be changed"];
  const changes: ActionChanges = {
    name: readName(fields.name, errors, false),
    enabled: readEnabled(fields.enabled, errors),
  };
  if (fields.config !== undefined) {
    Object.assign(errors, configErrors(type, fields.config, checkUrl));
    changes.config = fields.config as Record<string, unknown>;
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return changes;
}

/** A config checked by its type's schema, then by what a schema cannot say. */
export function configErrors(type: ActionType, config: unknown, checkUrl: UrlCheck): FieldErrors {
  if (!isRecord(config)) return { config: ["must be an object"] };
  const errors = configSchemaErrors(type, config);
  if (Object.keys(errors).length > 0) return errors;
  if (type === "condition") return conditionErrors(config);
  if (type === "http_request") return urlErrors(config.url as string, checkUrl);
  if (type === "modify_response") return answerHeaderErrors(config.headers);
  return {};
}

/** The filter's own 422 (decisions.md §8), its `filters[0]` prefix named `config` instead. */
function conditionErrors(config: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [field, messages] of Object.entries(validateFilters([conditionFilter(config)]))) {
    errors[field.replace(/^filters\[0\]\.?/, "config.").replace(/\.$/, "")] = messages;
  }
  return errors;
}

/** A URL without templates is judged now; one with templates when it is rendered at run time. */
function urlErrors(url: string, checkUrl: UrlCheck): FieldErrors {
  if (url.includes("$")) {
    return /^https?:\/\//i.test(url) || url.startsWith("$")
      ? {}
      : { "config.url": ["must be an absolute http(s) URL"] };
  }
  if (!isHttpUrl(url)) return { "config.url": ["must be an absolute http(s) URL"] };
  const problem = checkUrl(url);
  return problem ? { "config.url": [problem] } : {};
}

/** decisions.md §14: an answer may not act on the browser's session with Weir, nor its framing. */
function answerHeaderErrors(headers: unknown): FieldErrors {
  if (!isRecord(headers)) return {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) problems.push(`"${name}" is not a valid header name`);
    else if (SESSION_HEADERS.includes(lower)) {
      problems.push(`"${name}" would act on the browser's session with Weir and is not allowed`);
    } else if (OWNED_HEADERS.has(lower)) problems.push(`"${name}" is set by Weir`);
    else if (/[\r\n\0]/.test(String(value)))
      problems.push(`"${name}" has a line break in its value`);
  }
  return problems.length > 0 ? { "config.headers": problems } : {};
}

function readName(raw: unknown, errors: FieldErrors, required: boolean): string | undefined {
  if (raw === undefined || raw === null) {
    if (required) errors.name = ["is required"];
    return undefined;
  }
  if (typeof raw !== "string") {
    errors.name = ["must be text"];
    return undefined;
  }
  const name = raw.trim();
  if (name.length === 0) errors.name = ["must be 1 to 255 characters"];
  else if (name.length > NAME_MAX) errors.name = [`must be 1 to ${NAME_MAX} characters`];
  return name;
}

function readEnabled(raw: unknown, errors: FieldErrors): boolean | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === "boolean") return raw;
  errors.enabled = ["must be true or false"];
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
