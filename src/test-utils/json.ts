/**
 * A response body parsed as JSON, loosely typed: tests assert on its shape with expect().
 */
// biome-ignore lint/suspicious/noExplicitAny: test assertions inspect arbitrary JSON shapes.
export async function readJson(response: Response): Promise<any> {
  return response.json();
}
