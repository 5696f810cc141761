/** Keys that move the selection in the request list (j/k as in mail readers and pagers). */
const MOVES: Record<string, number | "first" | "last"> = {
  j: 1,
  ArrowDown: 1,
  k: -1,
  ArrowUp: -1,
  Home: "first",
  End: "last",
};

/** Whether a key moves the selection. */
export const isNavigationKey = (key: string): boolean => key in MOVES;

/**
 * The id selected after `key`, among `ids` in display order; stays put at either end. With
 * nothing selected, any move selects the first row.
 */
export function moveSelection(
  ids: string[],
  selected: string | undefined,
  key: string,
): string | undefined {
  const move = MOVES[key];
  if (move === undefined || ids.length === 0) return selected;
  if (move === "first") return ids[0];
  if (move === "last") return ids[ids.length - 1];
  const at = selected === undefined ? -1 : ids.indexOf(selected);
  if (at === -1) return ids[0];
  return ids[Math.min(ids.length - 1, Math.max(0, at + move))];
}
