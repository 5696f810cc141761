import { Cron } from "croner";
import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import { MAX_DURATION_MINUTES, type MaintenanceWindow } from "./maintenance.model.ts";

/** A window's editable fields, checked. */
export type MaintenanceDraft = Pick<
  MaintenanceWindow,
  | "title"
  | "description"
  | "monitorIds"
  | "startsAt"
  | "endsAt"
  | "cron"
  | "durationMinutes"
  | "timezone"
>;

type Fields = Record<string, unknown>;

const MAX_MONITORS = 500;

/** The editable fields of a stored window, as a request body would carry them. */
export function fieldsOfWindow(window: MaintenanceDraft): Fields {
  return {
    title: window.title,
    description: window.description,
    monitor_ids: window.monitorIds,
    starts_at: window.startsAt,
    ends_at: window.endsAt,
    cron: window.cron,
    duration_minutes: window.durationMinutes,
    timezone: window.timezone,
  };
}

/**
 * Checks a create body, or an update body laid over the current fields (`base`). A window is
 * one-off (`starts_at`, `ends_at`) or recurring (`cron`, `duration_minutes`, `timezone`): sending
 * `cron` makes it recurring, `cron: null` one-off again. Every problem is reported at once.
 */
export function validateWindow(body: unknown, base: Fields | null): MaintenanceDraft {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed({ body: ["must be a JSON object"] });
  }
  const input: Fields = { ...(base ?? {}), ...(body as Fields) };
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const title = typeof input.title === "string" ? input.title.trim() : "";
  if (title === "" || title.length > 200) fail("title", "is required (1 to 200 characters)");
  const description = input.description ?? null;
  if (description !== null && (typeof description !== "string" || description.length > 5000)) {
    fail("description", "must be a string of at most 5000 characters, or null");
  }
  const monitorIds = input.monitor_ids;
  if (
    !Array.isArray(monitorIds) ||
    monitorIds.length === 0 ||
    monitorIds.length > MAX_MONITORS ||
    !monitorIds.every((id) => typeof id === "string" && id !== "")
  ) {
    fail("monitor_ids", `must list 1 to ${MAX_MONITORS} monitor ids`);
  }
  const recurring = input.cron !== undefined && input.cron !== null;
  const draft: MaintenanceDraft = {
    title,
    description: typeof description === "string" ? description : null,
    monitorIds: Array.isArray(monitorIds) ? [...new Set(monitorIds as string[])] : [],
    startsAt: null,
    endsAt: null,
    cron: null,
    durationMinutes: null,
    timezone: null,
  };
  if (recurring) Object.assign(draft, recurringTimes(input, fail));
  else Object.assign(draft, oneOffTimes(input, fail));
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return draft;
}

type Fail = (field: string, message: string) => void;

function oneOffTimes(input: Fields, fail: Fail) {
  const startsAt = instant(input, "starts_at", fail);
  const endsAt = instant(input, "ends_at", fail);
  if (startsAt !== null && endsAt !== null && Date.parse(endsAt) <= Date.parse(startsAt)) {
    fail("ends_at", "must be after starts_at");
  }
  return { startsAt, endsAt };
}

function instant(input: Fields, field: string, fail: Fail): string | null {
  const value = input[field];
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    fail(field, "is required: an ISO 8601 time such as 2026-03-01T22:00:00Z (or send cron)");
    return null;
  }
  return new Date(ms).toISOString();
}

function recurringTimes(input: Fields, fail: Fail) {
  const cron = typeof input.cron === "string" ? input.cron.trim() : "";
  const timezone = input.timezone ?? "UTC";
  const duration = input.duration_minutes;
  if (typeof timezone !== "string" || !knownTimeZone(timezone)) {
    fail("timezone", "must be an IANA time zone such as Europe/Berlin");
  }
  if (cron.split(/\s+/).length !== 5 || !validCron(cron)) {
    fail(
      "cron",
      "must be a 5-field cron pattern such as `0 2 * * 0` (minute hour day month weekday)",
    );
  }
  if (
    typeof duration !== "number" ||
    !Number.isInteger(duration) ||
    duration < 1 ||
    duration > MAX_DURATION_MINUTES
  ) {
    fail("duration_minutes", `must be a whole number from 1 to ${MAX_DURATION_MINUTES}`);
  }
  return {
    cron,
    timezone: typeof timezone === "string" ? timezone : "UTC",
    durationMinutes: typeof duration === "number" ? duration : null,
  };
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function validCron(pattern: string): boolean {
  try {
    // A pattern that never fires (31 February) is refused like a malformed one.
    return new Cron(pattern, { paused: true }).nextRun() !== null;
  } catch {
    return false;
  }
}
