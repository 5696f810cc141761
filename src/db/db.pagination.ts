import { validationFailed } from "../shared/errors.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A validated page request (decisions.md §5). */
export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

/** The numbers every paginated envelope is built from. */
export interface PageInfo {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

/**
 * Reads `page` (≥ 1, default 1) and `page_size` (1–100, default 20; larger is clamped to 100).
 * Anything that is not a whole number in range is a 422 naming the parameter.
 */
export function parsePageRequest(query: Record<string, unknown>): PageRequest {
  const errors: Record<string, string[]> = {};
  const page = readPositive(query.page, 1, "page", errors);
  const size = readPositive(query.page_size, DEFAULT_PAGE_SIZE, "page_size", errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const pageSize = Math.min(size, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

function readPositive(
  raw: unknown,
  fallback: number,
  name: string,
  errors: Record<string, string[]>,
): number {
  if (raw === undefined || raw === "") return fallback;
  const text = String(raw);
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    errors[name] = ["must be a whole number of at least 1"];
    return fallback;
  }
  return value;
}

/** Combines a page request with the total row count; `totalPages = ceil(total / pageSize)`. */
export function pageInfo(request: PageRequest, total: number): PageInfo {
  return {
    page: request.page,
    pageSize: request.pageSize,
    total,
    totalPages: Math.ceil(total / request.pageSize),
  };
}

/** The generic envelope of interface.md: `{data, page, page_size, total}`. */
export function genericPage<T>(data: T[], info: PageInfo) {
  return { data, page: info.page, page_size: info.pageSize, total: info.total };
}

/** The generic paginated envelope as answered. */
export type GenericPage<T> = ReturnType<typeof genericPage<T>>;
