import type { TSchema } from "@sinclair/typebox";
import { bodyProblems } from "../shared/body-schema.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { AppError, type FieldErrors, inUse, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Sealer } from "../shared/sealed.ts";
import { SECRET_NAME } from "../shared/secret-template.ts";
import {
  MAX_NAME_CHARS,
  MAX_VALUE_CHARS,
  SecretCreateBody,
  SecretUpdateBody,
} from "./secrets.bodies.ts";
import type { SecretRow, SecretsStore } from "./secrets.store.ts";

export interface SecretsDeps {
  store: SecretsStore;
  sealer: Sealer;
  clock: Clock;
  ids: Ids;
  /** What says `{{name}}` (destinations, alert rule channels): a secret in use is not deleted. */
  usersOf?(organizationId: string, name: string): Promise<object[]>;
}

/** What a read shows of a secret: its name and dates, never the value (decisions.md §8). */
export interface SecretView {
  name: string;
  created_at: string;
  updated_at: string;
}

export const secretErrors = {
  notFound: () => new AppError("not_found", 404),
  nameTaken: () => new AppError("secret_name_taken", 409),
};

/** Associated data: a sealed value opens only in its own organization, under its own name. */
const rowIdentity = (organizationId: string, name: string) => `secret:${organizationId}:${name}`;

const view = (row: SecretRow): SecretView => ({
  name: row.name,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

function nameProblems(name: unknown): string[] {
  if (typeof name !== "string" || name === "") return ["is required"];
  if (name.length > MAX_NAME_CHARS) return [`must be at most ${MAX_NAME_CHARS} characters`];
  if (!SECRET_NAME.test(name)) {
    return ["must start with A-Z and hold only A-Z, 0-9 and _ (e.g. SLACK_WEBHOOK_URL)"];
  }
  return [];
}

function valueProblems(value: unknown): string[] {
  if (typeof value !== "string" || value === "") return ["is required (a non-empty string)"];
  if (value.length > MAX_VALUE_CHARS) return [`must be at most ${MAX_VALUE_CHARS} characters`];
  return [];
}

function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

function validate(schema: TSchema, body: unknown, checks: Record<string, string[]>): void {
  const own: FieldErrors = {};
  for (const [field, problems] of Object.entries(checks)) {
    if (problems.length > 0) own[field] = problems;
  }
  const errors = bodyProblems(schema, body, own);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** A lookup of an organization's secrets by name, opened (`{{NAME}}` at send time). */
export type SecretLookup = (name: string) => string | undefined;

/** Creates a secret; 422 on a bad name or value, 409 when the name is taken. */
export async function createSecret(
  organizationId: string,
  body: unknown,
  deps: SecretsDeps,
): Promise<SecretView> {
  const { name, value } = fieldsOf(body);
  validate(SecretCreateBody, body, { name: nameProblems(name), value: valueProblems(value) });
  const secretName = name as string;
  const now = isoAt(deps.clock.now());
  const row: SecretRow = {
    id: deps.ids.uuid(),
    organizationId,
    name: secretName,
    sealedValue: deps.sealer.seal(value as string, rowIdentity(organizationId, secretName)),
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.store.insert(row))) throw secretErrors.nameTaken();
  return view(row);
}

export const listSecrets = async (
  organizationId: string,
  deps: SecretsDeps,
): Promise<SecretView[]> => (await deps.store.list(organizationId)).map(view);

export async function getSecret(
  organizationId: string,
  name: string,
  deps: SecretsDeps,
): Promise<SecretView> {
  const row = await deps.store.find(organizationId, name);
  if (!row) throw secretErrors.notFound();
  return view(row);
}

/** Replaces a secret's value; the name stays (references to it keep working). */
export async function updateSecret(
  organizationId: string,
  name: string,
  body: unknown,
  deps: SecretsDeps,
): Promise<SecretView> {
  if (!(await deps.store.find(organizationId, name))) throw secretErrors.notFound();
  const { value } = fieldsOf(body);
  validate(SecretUpdateBody, body, { value: valueProblems(value) });
  const sealed = deps.sealer.seal(value as string, rowIdentity(organizationId, name));
  await deps.store.updateValue(organizationId, name, sealed, isoAt(deps.clock.now()));
  return getSecret(organizationId, name, deps);
}

/** Deletes a secret nothing refers to; one still in use is a 409 naming its users. */
export async function deleteSecret(
  organizationId: string,
  name: string,
  deps: SecretsDeps,
): Promise<void> {
  if (!(await deps.store.find(organizationId, name))) throw secretErrors.notFound();
  const users = (await deps.usersOf?.(organizationId, name)) ?? [];
  if (users.length > 0) throw inUse(users);
  await deps.store.remove(organizationId, name);
}

/**
 * The organization's secrets as a lookup for send-time substitution: `readRows` is called on the
 * first lookup only, and each value is opened on first use only.
 */
export function secretLookup(
  organizationId: string,
  readRows: () => readonly SecretRow[],
  sealer: Sealer,
): SecretLookup {
  let rows: Map<string, SecretRow> | null = null;
  const opened = new Map<string, string>();
  return (name) => {
    rows ??= new Map(readRows().map((row) => [row.name, row]));
    const cached = opened.get(name);
    if (cached !== undefined) return cached;
    const row = rows.get(name);
    if (!row) return undefined;
    const value = sealer.open(row.sealedValue, rowIdentity(organizationId, name));
    opened.set(name, value);
    return value;
  };
}

/** The lookup over the organization's secrets as stored now (read once, opened on use). */
export async function secretResolver(
  organizationId: string,
  deps: Pick<SecretsDeps, "store" | "sealer">,
): Promise<SecretLookup> {
  const rows = await deps.store.list(organizationId);
  return secretLookup(organizationId, () => rows, deps.sealer);
}

/** Every secret of the organization, opened: the `context.env` of a transformation. */
export async function secretEnvironment(
  organizationId: string,
  deps: Pick<SecretsDeps, "store" | "sealer">,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const row of await deps.store.list(organizationId)) {
    env[row.name] = deps.sealer.open(row.sealedValue, rowIdentity(organizationId, row.name));
  }
  return env;
}
