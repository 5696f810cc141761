import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

// Readers follow the docs' links and open the files they name; a section moved to
// docs/design/ or a renamed file must not leave them pointing at nothing.
const REPO = join(import.meta.dir, "../..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

const DOCS = [join(REPO, "README.md"), ...markdownFiles(join(REPO, "docs"))];

/** The text outside fenced code blocks: a `# …` line in a shell example is not a heading. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(readFileSync(path, "utf8")).matchAll(/^#{1,6} +(.+)$/gm)) {
    const base = slug(match[1] ?? "");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function brokenLinks(path: string): string[] {
  const broken: string[] = [];
  for (const match of prose(readFileSync(path, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1] ?? "";
    if (/^[a-z]+:/i.test(target)) continue;
    const [file = "", anchor] = target.split("#");
    const resolved = file === "" ? path : join(dirname(path), file);
    const where = `${relative(REPO, path)} → ${target}`;
    if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
    else if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor))
      broken.push(`${where} (no such heading)`);
  }
  return broken;
}

// Build outputs a doc may name although a fresh checkout does not hold them yet.
const BUILT = ["ui/dist", "dist/weir"];

function missingCodePaths(path: string): string[] {
  const text = prose(readFileSync(path, "utf8"));
  const named = text.matchAll(/(?<![\w./-])((?:src|scripts|migrations|docs|ui)\/[\w./-]*\w)/g);
  return [...named]
    .map((match) => match[1] ?? "")
    .filter((name) => !BUILT.some((built) => name.startsWith(built)))
    .filter((name) => !existsSync(join(REPO, name)))
    .map((name) => `${relative(REPO, path)} → ${name}`);
}

test("every relative link in README.md and docs/ points at an existing file and heading", () => {
  expect(DOCS.flatMap(brokenLinks)).toEqual([]);
});

test("every repository path the docs name exists", () => {
  expect(DOCS.flatMap(missingCodePaths)).toEqual([]);
});

test("the anchors are GitHub's", () => {
  expect(slug("Resolution: `last_success_at`, and why closing stays manual")).toBe(
    "resolution-last_success_at-and-why-closing-stays-manual",
  );
  expect(slug("GitHub push → Slack text")).toBe("github-push--slack-text");
  expect(slug("Signing (Standard Webhooks)")).toBe("signing-standard-webhooks");
});
