import type { FieldErrors } from "../shared/errors.ts";
import {
  type FieldPath,
  parseFieldPath,
  type RequestView,
  type Resolved,
  resolveFieldPath,
} from "../shared/field-path.ts";
import {
  anyElement,
  charge,
  compileOperator,
  type FilterMeter,
  isPlainObject,
  isScalar,
  OperandError,
  unmetered,
  type ValueMatcher,
} from "./filters.operators.ts";

export {
  FilterBudgetExceeded,
  type FilterMeter,
  meterOf,
  refill,
  unmetered,
} from "./filters.operators.ts";

/**
 * Destination filters (decisions.md §8, §12): an array of filter objects, all of which must match.
 * A filter object maps field paths to expressions and may combine whole filter objects with
 * `$or`, `$and` and `$not` at its root. Filters are compiled once (when saved or loaded) and the
 * compiled form is evaluated per event.
 */
export type FilterObject = Record<string, unknown>;

/** A compiled filter list: true when the request passes every filter object. */
export type CompiledFilters = (request: RequestView) => boolean;

type RequestMatcher = (request: RequestView) => boolean;

/**
 * Bounds on what one filter may hold, so a saved filter cannot make evaluation expensive.
 * `nodes` (terms per destination) is the default of the `filter_max_terms` knob.
 */
export const FILTER_LIMITS = { depth: 16, nodes: 1000, objects: 50 } as const;

const FIELD = "filters";

/** What a saved filter list may hold and cost (`filter_max_terms`, `filter_budget_ms`). */
export interface FilterSaveLimits {
  maxTerms: number;
  /** How long compiling it may take (its regexes): what every later route build pays again. */
  compileMs: number;
}

/** Checks a filter list as sent by a client: the `errors` of a 422, empty when it is usable. */
export function validateFilters(
  filters: unknown,
  limits: FilterSaveLimits = { maxTerms: FILTER_LIMITS.nodes, compileMs: Infinity },
): FieldErrors {
  const deadline = performance.now() + limits.compileMs;
  const result = tryCompile(filters, unmetered(), limits.maxTerms, deadline);
  return "errors" in result ? result.errors : {};
}

/**
 * Compiles filters that were accepted when saved (throws on anything validateFilters refuses
 * whatever its limit). Every comparison is charged to `meter`.
 */
export function compileFilters(
  filters: unknown,
  meter: FilterMeter = unmetered(),
): CompiledFilters {
  // A filter saved under a higher limit still runs: the meter bounds what it costs.
  const result = tryCompile(filters, meter, Infinity, Infinity);
  if ("errors" in result) throw new Error(`invalid filters: ${JSON.stringify(result.errors)}`);
  return result.matcher;
}

function tryCompile(
  filters: unknown,
  meter: FilterMeter,
  maxTerms: number,
  compileDeadline: number,
): { matcher: CompiledFilters } | { errors: FieldErrors } {
  if (filters === undefined || filters === null) return { matcher: () => true };
  if (!Array.isArray(filters)) return { errors: { [FIELD]: ["must be an array of objects"] } };
  if (filters.length > FILTER_LIMITS.objects) {
    return { errors: { [FIELD]: [`may hold at most ${FILTER_LIMITS.objects} filter objects`] } };
  }
  const budget: Budget = { nodes: 0, maxTerms, meter, compileDeadline };
  try {
    const parts = filters.map((f, i) => compileFilterObject(f, `${FIELD}[${i}]`, 0, budget));
    return { matcher: (request) => parts.every((part) => part(request)) };
  } catch (error) {
    if (!(error instanceof OperandError)) throw error;
    return { errors: { [error.where]: [error.message] } };
  }
}

interface Budget {
  nodes: number;
  maxTerms: number;
  meter: FilterMeter;
  /** performance.now() time past which compiling is refused (Infinity: filters already saved). */
  compileDeadline: number;
}

function spend(budget: Budget, depth: number, where: string): void {
  budget.nodes += 1;
  if (budget.nodes > budget.maxTerms) {
    throw new OperandError(where, `a filter list may hold at most ${budget.maxTerms} terms`);
  }
  if (budget.compileDeadline !== Infinity && performance.now() > budget.compileDeadline) {
    throw new OperandError(
      where,
      "takes too long to compile: use fewer or simpler $regex patterns",
    );
  }
  if (depth > FILTER_LIMITS.depth) {
    throw new OperandError(where, `nests deeper than ${FILTER_LIMITS.depth} levels`);
  }
}

function compileFilterObject(
  filter: unknown,
  where: string,
  depth: number,
  budget: Budget,
): RequestMatcher {
  spend(budget, depth, where);
  if (!isPlainObject(filter)) throw new OperandError(where, "must be an object");
  const parts = Object.entries(filter).map(([key, value]) =>
    key.startsWith("$")
      ? compileRootCombinator(key, value, `${where}.${key}`, depth, budget)
      : compilePathTerm(key, value, `${where}.${key}`, depth, budget),
  );
  return (request) => parts.every((part) => part(request));
}

function compileRootCombinator(
  op: string,
  operand: unknown,
  where: string,
  depth: number,
  budget: Budget,
): RequestMatcher {
  if (op === "$not") {
    const inner = compileFilterObject(operand, where, depth + 1, budget);
    return (request) => !inner(request);
  }
  if (op !== "$or" && op !== "$and") {
    throw new OperandError(where, `${op} cannot stand at the root: name a field path first`);
  }
  if (!Array.isArray(operand) || operand.length === 0) {
    throw new OperandError(where, `${op} takes a non-empty array of filter objects`);
  }
  const parts = operand.map((f, i) => compileFilterObject(f, `${where}[${i}]`, depth + 1, budget));
  return op === "$or"
    ? (request) => parts.some((part) => part(request))
    : (request) => parts.every((part) => part(request));
}

function compilePathTerm(
  key: string,
  expression: unknown,
  where: string,
  depth: number,
  budget: Budget,
): RequestMatcher {
  const path: FieldPath | string = parseFieldPath(key);
  if (typeof path === "string") throw new OperandError(where, `path ${path}`);
  const matches = compileExpression(expression, where, depth + 1, budget);
  if (!path.selectsMany) return (request) => matches(resolveFieldPath(path, request));
  const { meter } = budget;
  return (request) => {
    const resolved = resolveFieldPath(path, request);
    // `[*]` walks every element to collect them: that walk is paid too.
    if (resolved.found && Array.isArray(resolved.value)) charge(meter, resolved.value.length);
    return matches(resolved);
  };
}

/** Operator object, partial object, array of required items, or a scalar meaning equality. */
function compileExpression(
  expression: unknown,
  where: string,
  depth: number,
  budget: Budget,
): ValueMatcher {
  spend(budget, depth, where);
  const { meter } = budget;
  const nested = (inner: unknown, at: string) => compileExpression(inner, at, depth + 1, budget);
  if (isScalar(expression)) return (r) => anyElement(meter, r, (v) => v === expression);
  if (Array.isArray(expression)) return compileRequiredItems(expression, where, nested, meter);
  if (!isPlainObject(expression)) throw new OperandError(where, "is not a JSON value");
  const keys = Object.keys(expression);
  const operators = keys.filter((k) => k.startsWith("$"));
  if (operators.length > 0 && operators.length < keys.length) {
    throw new OperandError(where, "mixes operators and field names in one object");
  }
  if (operators.length > 0) {
    const parts = operators.map((op) =>
      compileOperator(op, expression[op], `${where}.${op}`, nested, meter),
    );
    return (r) => parts.every((part) => part(r));
  }
  return compilePartialObject(expression, where, nested, meter);
}

/** `{}` matches any present object; otherwise each listed field must match (more may exist). */
function compilePartialObject(
  expression: Record<string, unknown>,
  where: string,
  nested: (inner: unknown, at: string) => ValueMatcher,
  meter: FilterMeter,
): ValueMatcher {
  const fields = Object.entries(expression).map(
    ([key, inner]) => [key, nested(inner, `${where}.${key}`)] as const,
  );
  const matchesObject = (value: unknown) =>
    isPlainObject(value) && fields.every(([key, matches]) => matches(childResolved(value, key)));
  return (r) => anyElement(meter, r, matchesObject);
}

function childResolved(value: Record<string, unknown>, key: string): Resolved {
  return Object.hasOwn(value, key) ? { found: true, value: value[key] } : { found: false };
}

/** An array in a filter requires every listed item to be present in the array field. */
function compileRequiredItems(
  items: unknown[],
  where: string,
  nested: (inner: unknown, at: string) => ValueMatcher,
  meter: FilterMeter,
): ValueMatcher {
  const required = items.map((item, i) => nested(item, `${where}[${i}]`));
  return (r) => {
    if (!r.found || !Array.isArray(r.value)) return false;
    charge(meter, r.value.length * required.length);
    const elements = r.value.map((value): Resolved => ({ found: true, value }));
    return required.every((matches) => elements.some((element) => matches(element)));
  };
}

/** Where a filter list rejected a request: the filter object (0-based) and its failing term. */
export interface FilterRejection {
  filter: number;
  /** The term's key as written: a field path (`body.type`) or a root `$or`, `$and`, `$not`. */
  path: string;
}

/**
 * The first term of a filter list that a request fails, or null when it passes. Built apart from
 * `compileFilters` so the hot path keeps one closure per filter object; this one runs only for
 * requests that every destination rejected, to tell the user why. Takes filters validateFilters
 * accepted.
 */
export function compileFilterExplainer(
  filters: unknown,
  meter: FilterMeter = unmetered(),
): (request: RequestView) => FilterRejection | null {
  if (!Array.isArray(filters)) return () => null;
  // Explaining charges the event's meter too: an explanation costs no more than the match did.
  const budget: Budget = { nodes: 0, maxTerms: Infinity, meter, compileDeadline: Infinity };
  const terms = filters.flatMap((filter: FilterObject, index) =>
    Object.entries(filter).map(([key, value]) => {
      const where = `${FIELD}[${index}].${key}`;
      return {
        rejection: { filter: index, path: key },
        matches: key.startsWith("$")
          ? compileRootCombinator(key, value, where, 0, budget)
          : compilePathTerm(key, value, where, 0, budget),
      };
    }),
  );
  return (request) => terms.find((term) => !term.matches(request))?.rejection ?? null;
}
