import { parseDedupConfig } from "../dedup/dedup.model.ts";
import { bodyProblems } from "../shared/body-schema.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { type FieldErrors, notFound, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Sealer } from "../shared/sealed.ts";
import {
  parseVerification,
  sealVerification,
  type VerificationInput,
  verificationOwner,
} from "../verification/verification.settings.ts";
import { SourceCreateBody, SourcePatchBody, SourceRenameBody } from "./routing.bodies.ts";
import { routingErrors } from "./routing.errors.ts";
import { asObject, checkName, parseSourceInput, type Source, sourceSlug } from "./sources.model.ts";
import type { SourcesStore } from "./sources.store.ts";

export interface SourcesDeps {
  /** The store forgets a deleted source's dedup keys and counters in the same transaction. */
  sources: SourcesStore;
  clock: Clock;
  ids: Ids;
  /** Told after any change that alters where ingests go (the ingest path caches routes). */
  routesChanged(): void;
  /** Seals verification secrets at rest (decisions.md §15). */
  sealer: Sealer;
}

/** The setting sealed to its source's row (null: none). */
const sealedFor = (
  source: Pick<Source, "id" | "verification">,
  input: VerificationInput | null,
  deps: SourcesDeps,
) =>
  input
    ? sealVerification(
        input,
        deps.sealer,
        verificationOwner("source", source.id),
        source.verification,
      )
    : null;

const failIf = (errors: FieldErrors) => {
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
};

/** Builds a new source from a validated input (not stored). */
export function newSource(
  organizationId: string,
  input: Pick<Source, "name" | "type" | "deduplicationConfig"> &
    Partial<Pick<Source, "verification">>,
  deps: Pick<SourcesDeps, "clock" | "ids">,
): Source {
  const now = isoAt(deps.clock.now());
  return {
    id: deps.ids.uuid(),
    organizationId,
    verification: null,
    ...input,
    slug: sourceSlug(input.name, deps.ids.base62(10)),
    createdAt: now,
    updatedAt: now,
  };
}

export async function createSource(
  organizationId: string,
  body: unknown,
  deps: SourcesDeps,
): Promise<Source> {
  const input = parseSourceInput(body);
  const verification = parseVerification(asObject(body).verification, input.errors);
  failIf(bodyProblems(SourceCreateBody, body, input.errors));
  const source = newSource(organizationId, input, deps);
  source.verification = sealedFor(source, verification ?? null, deps);
  if (!(await deps.sources.insert(source))) throw routingErrors.sourceNameTaken();
  return source;
}

export async function requireSource(
  organizationId: string,
  id: string,
  deps: Pick<SourcesDeps, "sources">,
): Promise<Source> {
  const source = await deps.sources.find(organizationId, id);
  if (!source) throw notFound();
  return source;
}

/** PUT `{name}`: renames (type and slug never change: the ingest URL stays). */
export async function renameSource(
  organizationId: string,
  id: string,
  body: unknown,
  deps: SourcesDeps,
): Promise<Source> {
  const source = await requireSource(organizationId, id, deps);
  const errors: FieldErrors = {};
  const name = checkName(asObject(body).name, "name", errors);
  failIf(bodyProblems(SourceRenameBody, body, errors));
  const updated = { ...source, name, updatedAt: isoAt(deps.clock.now()) };
  if (!(await deps.sources.update(updated))) throw routingErrors.sourceNameTaken();
  return updated;
}

/** PATCH `{deduplication_config}`: replaces the config (null removes it). */
export async function patchSource(
  organizationId: string,
  id: string,
  body: unknown,
  deps: SourcesDeps,
): Promise<Source> {
  const source = await requireSource(organizationId, id, deps);
  const raw = asObject(body);
  const errors: FieldErrors = {};
  let name = source.name;
  if (raw.name !== undefined) name = checkName(raw.name, "name", errors);
  const verification = parseVerification(raw.verification, errors, { update: true });
  if (!("deduplication_config" in raw) && raw.name === undefined && !("verification" in raw)) {
    errors.deduplication_config = ["is required"];
  }
  const dedup = parseDedupConfig(raw.deduplication_config);
  if (dedup.errors) Object.assign(errors, dedup.errors);
  failIf(bodyProblems(SourcePatchBody, body, errors));
  const parsed = dedup.errors ? null : dedup.config;
  const deduplicationConfig = "deduplication_config" in raw ? parsed : source.deduplicationConfig;
  const updated = { ...source, name, deduplicationConfig, updatedAt: isoAt(deps.clock.now()) };
  if (verification !== undefined) updated.verification = sealedFor(source, verification, deps);
  if (!(await deps.sources.update(updated))) throw routingErrors.sourceNameTaken();
  deps.routesChanged();
  return updated;
}

/** DELETE: the source, its bridges and destinations, and its dedup keys and counters. */
export async function deleteSource(
  organizationId: string,
  id: string,
  deps: SourcesDeps,
): Promise<void> {
  if (!(await deps.sources.remove(organizationId, id))) throw notFound();
  deps.routesChanged();
}
