import { createHmac } from "node:crypto";

/** A verification rule checking GitHub's `x-hub-signature-256`, with no secret yet. */
export const GITHUB_RULE = {
  type: "github" as const,
  toleranceSeconds: null,
  header: null,
  algorithm: null,
  encoding: null,
  prefix: null,
  signed: null,
  timestampHeader: null,
};

const BODY = new TextEncoder().encode('{"a":1}');

/** A small JSON request signed as GitHub signs it, with `secret`. */
export const githubSigned = (secret: string) => ({
  headers: {
    "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(BODY).digest("hex")}`,
  },
  body: BODY,
});
