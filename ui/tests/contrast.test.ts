import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The custom properties of the light theme (`:root`) and of the dark one (the media query). */
function themes(): { light: Record<string, string>; dark: Record<string, string> } {
  const css = readFileSync(join(import.meta.dir, "../src/styles.css"), "utf8");
  const read = (block: string) =>
    Object.fromEntries(
      [...block.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-f]{6});/gi)].map((m) => [m[1], m[2]]),
    );
  const darkStart = css.indexOf("@media (prefers-color-scheme: dark)");
  const light = read(css.slice(0, darkStart));
  const dark = { ...light, ...read(css.slice(darkStart, css.indexOf("}\n}", darkStart))) };
  return { light, dark };
}

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Foreground/background pairs the UI draws text with. */
const PAIRS: [string, string][] = [
  ["text", "bg"],
  ["text", "surface"],
  ["text", "surface-2"],
  ["text", "selected"],
  ["text", "fresh"],
  ["muted", "bg"],
  ["muted", "surface"],
  ["muted", "surface-2"],
  ["accent", "surface"],
  ["accent", "bg"],
  ["accent-text", "accent"],
  ["danger", "surface"],
  ["danger", "danger-bg"],
  ["ok", "ok-bg"],
  ["ok", "surface"],
  ["warn", "warn-bg"],
  ["warn", "surface"],
  ["info", "info-bg"],
  ["text", "code-bg"],
  // The code editor's gutter: line numbers, and the error line.
  ["muted", "code-bg"],
  ["danger", "code-bg"],
  ["json-key", "code-bg"],
  ["json-string", "code-bg"],
  ["json-number", "code-bg"],
  ["json-literal", "code-bg"],
];

describe("colour contrast (WCAG AA, 4.5:1 for text)", () => {
  for (const [name, palette] of Object.entries(themes())) {
    test(`${name} theme`, () => {
      const failing = PAIRS.map(([fg, bg]) => {
        const [a, b] = [palette[fg], palette[bg]];
        if (!a || !b) return `${fg} on ${bg}: colour missing`;
        const ratio = contrast(a, b);
        return ratio >= 4.5 ? null : `${fg} on ${bg}: ${ratio.toFixed(2)}`;
      }).filter(Boolean);
      expect(failing).toEqual([]);
    });
  }
});
