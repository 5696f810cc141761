import type { TSchema } from "@sinclair/typebox";
import { bodyProblems } from "../shared/body-schema.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { AppError, type FieldErrors, inUse, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import {
  MAX_CODE_CHARS,
  MAX_NAME_CHARS,
  TransformationCreateBody,
  TransformationTestBody,
  TransformationUpdateBody,
  UnsavedTransformationTestBody,
} from "./transformations.bodies.ts";
import {
  type ScriptableRequest,
  type TransformationError,
  type TransformationOutcome,
  toScriptableRequest,
} from "./transformations.model.ts";
import type { TransformationRun, TransformationRunner } from "./transformations.runner.ts";
import type { TransformationRow, TransformationsStore } from "./transformations.store.ts";

export interface TransformationsDeps {
  store: TransformationsStore;
  runner: TransformationRunner;
  /** The organization's secrets by name: `context.env`. */
  secretEnvironment(organizationId: string): Promise<Record<string, string>>;
  clock: Clock;
  ids: Ids;
  /** The destinations that run a transformation: one in use is not deleted. */
  usersOf?(organizationId: string, transformationId: string): Promise<object[]>;
}

export interface TransformationView {
  id: string;
  name: string;
  code: string;
  created_at: string;
  updated_at: string;
}

/** The test endpoints' answer (decisions.md §8). */
export interface TestView {
  request: ScriptableRequest | null;
  logs: TransformationRun["logs"];
  error: TransformationError | null;
}

export const transformationErrors = {
  notFound: () => new AppError("not_found", 404),
};

const view = (row: TransformationRow): TransformationView => ({
  id: row.id,
  name: row.name,
  code: row.code,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const fieldsOf = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};

/**
 * Checks the body against its schema, then name and code (code is parsed in the sandbox; a
 * syntax error names its line).
 */
async function validateFields(
  organizationId: string,
  body: { schema: TSchema; raw: unknown },
  fields: { name: unknown; code: unknown },
  deps: TransformationsDeps,
): Promise<{ name: string; code: string }> {
  const errors: FieldErrors = {};
  const { name, code } = fields;
  if (typeof name !== "string" || name.trim() === "") errors.name = ["is required"];
  else if (name.length > MAX_NAME_CHARS)
    errors.name = [`must be at most ${MAX_NAME_CHARS} characters`];
  if (typeof code !== "string" || code.trim() === "") errors.code = ["is required"];
  else if (code.length > MAX_CODE_CHARS)
    errors.code = [`must be at most ${MAX_CODE_CHARS} characters`];
  else {
    const problem = await deps.runner.syntaxError(code, organizationId);
    if (problem) errors.code = [problem];
  }
  const problems = bodyProblems(body.schema, body.raw, errors);
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return { name: (name as string).trim(), code: code as string };
}

async function requireRow(organizationId: string, id: string, deps: TransformationsDeps) {
  const row = await deps.store.find(organizationId, id);
  if (!row) throw transformationErrors.notFound();
  return row;
}

export async function createTransformation(
  organizationId: string,
  body: unknown,
  deps: TransformationsDeps,
): Promise<TransformationView> {
  const fields = fieldsOf(body);
  const { name, code } = await validateFields(
    organizationId,
    { schema: TransformationCreateBody, raw: body },
    { name: fields.name, code: fields.code },
    deps,
  );
  const now = isoAt(deps.clock.now());
  const row = { id: deps.ids.uuid(), organizationId, name, code, createdAt: now, updatedAt: now };
  await deps.store.insert(row);
  return view(row);
}

export const listTransformations = async (organizationId: string, deps: TransformationsDeps) =>
  (await deps.store.list(organizationId)).map(view);

export const getTransformation = async (
  organizationId: string,
  id: string,
  deps: TransformationsDeps,
) => view(await requireRow(organizationId, id, deps));

/** PUT replaces name and/or code (a missing field keeps its value). */
export async function updateTransformation(
  organizationId: string,
  id: string,
  body: unknown,
  deps: TransformationsDeps,
): Promise<TransformationView> {
  const current = await requireRow(organizationId, id, deps);
  const fields = fieldsOf(body);
  const checked = await validateFields(
    organizationId,
    { schema: TransformationUpdateBody, raw: body },
    { name: fields.name ?? current.name, code: fields.code ?? current.code },
    deps,
  );
  const row = { ...current, ...checked, updatedAt: isoAt(deps.clock.now()) };
  await deps.store.update(row);
  return view(row);
}

export async function deleteTransformation(
  organizationId: string,
  id: string,
  deps: TransformationsDeps,
): Promise<void> {
  if (!(await deps.store.find(organizationId, id))) throw transformationErrors.notFound();
  const users = (await deps.usersOf?.(organizationId, id)) ?? [];
  if (users.length > 0) throw inUse(users);
  await deps.store.remove(organizationId, id);
  deps.runner.forget(id);
}

function testView(run: TransformationRun): TestView {
  if ("error" in run) return { request: null, logs: run.logs, error: run.error };
  if ("filtered" in run) return { request: null, logs: run.logs, error: null };
  return { request: run.request, logs: run.logs, error: null };
}

/** The sample request of a test run, once the body passed its schema and the room's checks. */
function requestOf(schema: TSchema, body: unknown, own: FieldErrors = {}): ScriptableRequest {
  const { request } = fieldsOf(body);
  const errors: FieldErrors = { ...own };
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    errors.request = ["is required: {method, path, query, headers, body}"];
  }
  const problems = bodyProblems(schema, body, errors);
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return toScriptableRequest(request);
}

/** `POST /transformations/{id}/test {request}`: runs the saved code on a sample. */
export async function testSavedTransformation(
  organizationId: string,
  id: string,
  body: unknown,
  deps: TransformationsDeps,
): Promise<TestView> {
  const row = await requireRow(organizationId, id, deps);
  const request = requestOf(TransformationTestBody, body);
  const env = await deps.secretEnvironment(organizationId);
  return testView(await deps.runner.run(row.id, row.code, request, env, organizationId));
}

/** `POST /transformations/test {code, request}`: the same for unsaved code (editors). */
export async function testUnsavedTransformation(
  organizationId: string,
  body: unknown,
  deps: TransformationsDeps,
): Promise<TestView> {
  const fields = fieldsOf(body);
  const own: FieldErrors = {};
  if (typeof fields.code !== "string" || fields.code.trim() === "") own.code = ["is required"];
  const request = requestOf(UnsavedTransformationTestBody, body, own);
  const code = fields.code as string;
  const problem = await deps.runner.syntaxError(code, organizationId);
  if (problem)
    return { request: null, logs: [], error: { code: "script_error", message: problem } };
  const env = await deps.secretEnvironment(organizationId);
  // One realm per organization for unsaved code: an editor's repeated tests of the same code
  // reuse it, and no two organizations share one.
  return testView(
    await deps.runner.run(`unsaved:${organizationId}`, code, request, env, organizationId),
  );
}

/** What routing's prepare() asks: the outcome of one saved transformation on one request. */
export async function runTransformation(
  organizationId: string,
  id: string,
  request: unknown,
  deps: TransformationsDeps,
): Promise<TransformationOutcome> {
  const row = await deps.store.find(organizationId, id);
  if (!row) return { error: { code: "script_error", message: `transformation ${id} not found` } };
  const env = await deps.secretEnvironment(organizationId);
  const run = await deps.runner.run(
    row.id,
    row.code,
    toScriptableRequest(request),
    env,
    organizationId,
  );
  const { logs: _logs, ...outcome } = run;
  return outcome as TransformationOutcome;
}
