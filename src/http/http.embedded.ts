/**
 * The path of a file imported `with { type: "file" }`. Bun's types describe `.html` imports as
 * HTML bundles, but with that import attribute the value is the embedded file's path.
 */
export function embeddedPath(imported: unknown): string {
  if (typeof imported !== "string") throw new Error("expected an embedded file path");
  return imported;
}
