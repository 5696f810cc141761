/**
 * A poll's answer laid over the rows on screen: rows already shown take their newer version in
 * place; newer rows are only counted, so the list does not move under the reader.
 */
export function overlayFresh<R extends { id: string; created_at: string }>(
  shown: R[],
  fresh: R[],
): { rows: R[]; newCount: number } {
  const byId = new Map(fresh.map((r) => [r.id, r]));
  let changed = false;
  const rows = shown.map((r) => {
    const next = byId.get(r.id);
    if (!next || JSON.stringify(next) === JSON.stringify(r)) return r;
    changed = true;
    return next;
  });
  const newest =
    shown
      .map((r) => r.created_at)
      .sort()
      .at(-1) ?? "";
  const shownIds = new Set(shown.map((r) => r.id));
  const newCount = fresh.filter((r) => !shownIds.has(r.id) && r.created_at >= newest).length;
  return { rows: changed ? rows : shown, newCount };
}
