import { describe, expect, test } from "bun:test";
import { pageStylesheet } from "./status-pages.css.ts";

/** The custom properties of the first `:root{…}` block after `from` in the stylesheet. */
function paletteAfter(css: string, from: number): Record<string, string> {
  const start = css.indexOf(":root{--bg", from);
  const block = css.slice(start, css.indexOf("}", start));
  return Object.fromEntries(
    [...block.matchAll(/--([a-z-]+):(#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]]),
  );
}

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

const css = pageStylesheet("#a855f7");
const schemes = {
  light: paletteAfter(css, 0),
  dark: paletteAfter(css, css.indexOf("prefers-color-scheme:dark")),
};
// Every text colour the page writes, on each background it writes it on.
const TEXT = ["fg", "muted", "up", "degraded", "down", "maintenance"];
const BACKGROUNDS = ["bg", "card"];

describe("the status page's colours meet WCAG AA (4.5:1) in both schemes", () => {
  for (const [scheme, palette] of Object.entries(schemes)) {
    test(scheme, () => {
      expect(Object.keys(palette)).toEqual(expect.arrayContaining([...TEXT, ...BACKGROUNDS]));
      const failing = TEXT.flatMap((text) =>
        BACKGROUNDS.filter((bg) => contrast(palette[text] ?? "", palette[bg] ?? "") < 4.5).map(
          (bg) =>
            `${text} on ${bg}: ${contrast(palette[text] ?? "", palette[bg] ?? "").toFixed(2)}`,
        ),
      );
      expect(failing).toEqual([]);
    });
  }
});
