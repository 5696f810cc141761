import type { Sealer } from "../shared/sealed.ts";
import { createVerificationChecker } from "../verification/verification.checker.ts";
import type { SignedRequest, VerificationResult } from "../verification/verification.model.ts";
import { verificationOwner } from "../verification/verification.settings.ts";
import type { Source } from "./sources.model.ts";

type SecretLookup = (name: string) => string | undefined;

export interface SourceVerifierDeps {
  sealer: Sealer;
  /** SQLite: the organization's secrets read without waiting. */
  resolveSecretsNow?(organizationId: string): SecretLookup;
  /** PostgreSQL: the organization's secrets, awaited before the check. */
  resolveSecrets?(organizationId: string): Promise<SecretLookup>;
  /** Whether the secrets must be awaited (`verifyAsync`): on PostgreSQL. */
  awaitSecrets: boolean;
  now(): number;
}

/** The signature verdict of a request to a source with a verification setting. */
export interface SourceVerifier {
  verify(source: Source, request: SignedRequest): VerificationResult;
  /**
   * PostgreSQL only: the same, after fetching the organization's secrets for a `{{NAME}}`
   * secret; SQLite's `verify` reads them synchronously and stays off the promise path.
   */
  verifyAsync?(source: Source, request: SignedRequest): Promise<VerificationResult>;
}

export function createSourceVerifier(deps: SourceVerifierDeps): SourceVerifier {
  const ownerOf = (source: Source) => ({
    organizationId: source.organizationId,
    owner: verificationOwner("source", source.id),
  });
  const check = createVerificationChecker({
    sealer: deps.sealer,
    resolveSecrets: deps.resolveSecretsNow,
    now: deps.now,
  });
  const verify = (source: Source, request: SignedRequest) =>
    check(source.verification, ownerOf(source), request);
  const { resolveSecrets } = deps;
  if (!deps.awaitSecrets || !resolveSecrets) return { verify };
  return {
    verify,
    async verifyAsync(source, request) {
      const secrets = await resolveSecrets(source.organizationId);
      return check(source.verification, ownerOf(source), request, secrets);
    },
  };
}
