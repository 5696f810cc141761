/** `list` with the item at `index` moved one place by `step` (−1 up, +1 down); unchanged at an end. */
export function moved<T>(list: T[], index: number, step: -1 | 1): T[] {
  const target = index + step;
  if (target < 0 || target >= list.length) return list;
  const next = [...list];
  [next[index], next[target]] = [next[target] as T, next[index] as T];
  return next;
}

/** The items whose `display_order` must change so that the order is their place, from 1. */
export const renumbered = <T extends { display_order: number }>(list: T[]) =>
  list
    .map((item, index) => ({ item, order: index + 1 }))
    .filter(({ item, order }) => item.display_order !== order);

export const byOrder = <T extends { display_order: number }>(list: T[]) =>
  [...list].sort((a, b) => a.display_order - b.display_order);
