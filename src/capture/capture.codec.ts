import type { CapturedRequest } from "./capture.model.ts";

/**
 * One captured request as the INSERT binds it, in column order: id, endpoint_id, method, path,
 * query_string, headers (JSON), raw_headers (JSON), body, content_type, size, remote_ip, status,
 * created_at.
 */
export type InsertRow = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  Uint8Array,
  string | null,
  number,
  string | null,
  number,
  string,
];

/** A request as its INSERT binds it (headers serialized once, here). */
export function toInsertRow(r: CapturedRequest): InsertRow {
  return [
    r.id,
    r.endpointId,
    r.method,
    r.path,
    r.queryString,
    JSON.stringify(r.headers),
    JSON.stringify(r.rawHeaders),
    r.body,
    r.contentType,
    r.size,
    r.remoteIp,
    r.status,
    r.createdAt,
  ];
}

const NULL_LENGTH = 0xffffffff;
const STRING_COLUMNS = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12] as const;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Packs a batch into one buffer that can be transferred to the store thread without a copy.
 * Structured cloning the request objects cost ~30 % of a core under load (docs/performance.md);
 * this is length-prefixed UTF-8 strings and raw body bytes, in column order.
 */
export function encodeBatch(requests: readonly CapturedRequest[]): Uint8Array<ArrayBuffer> {
  const rows = requests.map(toInsertRow);
  let capacity = 4;
  for (const row of rows) {
    capacity += 4 * 14 + row[7].byteLength;
    for (const column of STRING_COLUMNS)
      capacity += 3 * ((row[column] as string | null)?.length ?? 0);
  }
  const bytes = new Uint8Array(capacity);
  const view = new DataView(bytes.buffer);
  let at = 4;
  view.setUint32(0, rows.length);
  const putBytes = (value: Uint8Array) => {
    view.setUint32(at, value.byteLength);
    bytes.set(value, at + 4);
    at += 4 + value.byteLength;
  };
  const putText = (value: string | null) => {
    if (value === null) {
      view.setUint32(at, NULL_LENGTH);
      at += 4;
      return;
    }
    const { written } = encoder.encodeInto(value, bytes.subarray(at + 4));
    view.setUint32(at, written);
    at += 4 + written;
  };
  for (const row of rows) {
    for (let column = 0; column < 13; column++) {
      if (column === 7) putBytes(row[7]);
      else if (column === 9 || column === 11) {
        view.setUint32(at, row[column] as number);
        at += 4;
      } else putText(row[column] as string | null);
    }
  }
  return bytes.subarray(0, at);
}

/** Unpacks `encodeBatch`'s buffer; bodies are views into it (no copy). */
export function decodeBatch(bytes: Uint8Array): InsertRow[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 4;
  const takeBytes = () => {
    const length = view.getUint32(at);
    const value = bytes.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    return value;
  };
  const takeText = (): string | null => {
    const length = view.getUint32(at);
    at += 4;
    if (length === NULL_LENGTH) return null;
    const value = decoder.decode(bytes.subarray(at, at + length));
    at += length;
    return value;
  };
  const rows: InsertRow[] = [];
  for (let count = view.getUint32(0); count > 0; count--) {
    const row: unknown[] = [];
    for (let column = 0; column < 13; column++) {
      if (column === 7) row.push(takeBytes());
      else if (column === 9 || column === 11) {
        row.push(view.getUint32(at));
        at += 4;
      } else row.push(takeText());
    }
    rows.push(row as InsertRow);
  }
  return rows;
}
