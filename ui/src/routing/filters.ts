/** The filter editor's text as the API's `filters`, or why it is not JSON. */
export function parseFilters(text: string): { filters: unknown[] } | { error: string } {
  if (text.trim() === "") return { filters: [] };
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return { error: "Filters must be a JSON array of filter objects." };
    return { filters: value };
  } catch (error) {
    return { error: `Not valid JSON: ${(error as Error).message}` };
  }
}

/** The messages the server gave for any filter path (`filters[0].body.amount`), with that path. */
export function filterErrors(errors: Record<string, string[]>): string[] {
  return Object.entries(errors)
    .filter(([key]) => key === "filters" || key.startsWith("filters["))
    .flatMap(([key, messages]) => messages.map((m) => (key === "filters" ? m : `${key}: ${m}`)));
}
