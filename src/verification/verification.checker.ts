import { SealedValueError, type Sealer } from "../shared/sealed.ts";
import { secretReferences, substituteSecrets } from "../shared/secret-template.ts";
import {
  NOT_CONFIGURED,
  type SignedRequest,
  type VerificationResult,
  verifySignature,
} from "./verification.model.ts";
import type { StoredVerification } from "./verification.settings.ts";

export interface VerificationCheckerDeps {
  sealer: Sealer;
  /** The organization's secrets by name, for a `{{NAME}}` secret (secrets room). */
  resolveSecrets?(organizationId: string): (name: string) => string | undefined;
  now(): number;
}

/** Whose setting is checked: the organization (for `{{NAME}}`) and the row it is sealed to. */
export interface VerificationOwner {
  organizationId: string | null;
  /** `verificationOwner(kind, id)`. */
  owner: string;
}

/** Opened secrets kept at most; each is a few dozen bytes. */
const OPENED_LIMIT = 1000;

/**
 * Checks requests against stored settings: opens the sealed secret (kept opened per sealed value,
 * so a busy endpoint decrypts once), resolves a `{{NAME}}` template against the organization's
 * secrets at every check (a rotated secret applies at once, and is never stored resolved), then
 * runs the pure check.
 */
export function createVerificationChecker(deps: VerificationCheckerDeps) {
  const opened = new Map<string, string | null>();
  const open = (stored: StoredVerification, owner: string): string | null => {
    const key = `${owner} ${stored.sealedSecret}`;
    let secret = opened.get(key);
    if (secret === undefined) {
      try {
        secret = deps.sealer.open(stored.sealedSecret, owner);
      } catch (error) {
        if (!(error instanceof SealedValueError)) throw error;
        secret = null;
      }
      if (opened.size >= OPENED_LIMIT) opened.clear();
      opened.set(key, secret);
    }
    return secret;
  };
  return (
    stored: StoredVerification | null,
    who: VerificationOwner,
    request: SignedRequest,
    /** The organization's secrets fetched by the caller (PostgreSQL), in place of `resolveSecrets`. */
    secrets?: (name: string) => string | undefined,
  ): VerificationResult => {
    if (!stored) return NOT_CONFIGURED;
    const written = open(stored, who.owner);
    if (written === null)
      return { status: "invalid", reason: "secret cannot be read: set it again" };
    let secret = written;
    if (secretReferences(written).length > 0) {
      const lookup =
        secrets ??
        (who.organizationId !== null && deps.resolveSecrets
          ? deps.resolveSecrets(who.organizationId)
          : () => undefined);
      const filled = substituteSecrets(written, lookup);
      if (!filled.ok)
        return { status: "invalid", reason: `secret {{${filled.missing}}} is not set` };
      secret = filled.text;
    }
    return verifySignature(stored, secret, request, deps.now());
  };
}

export type VerificationChecker = ReturnType<typeof createVerificationChecker>;
