import { RE2JS } from "re2js";
import type { Resolved } from "../shared/field-path.ts";

/**
 * The operators of decisions.md §8, each turned into a predicate on what a path resolved to.
 * Building one checks its operand, so a filter that cannot be evaluated fails when it is saved
 * (a thrown OperandError becomes the 422), never as a silent no-match at run time.
 */
export type ValueMatcher = (resolved: Resolved) => boolean;

/**
 * What one event may still spend on filters, in element comparisons, counted down by every
 * matcher compiled with it (all destinations of the event share one). Running out throws
 * `FilterBudgetExceeded`, ending the evaluation at once: terms × array elements, not terms
 * alone, is what an unauthenticated body can make large. `deadline` (performance.now() time) is
 * the safety net for a cost the counts underrate (a regex much slower than measured): the clock
 * is read once per CLOCK_EVERY comparisons.
 */
export interface FilterMeter {
  left: number;
  /** Below this `left`, the clock is read next. */
  clockAt: number;
  deadline: number;
}

const CLOCK_EVERY = 16_384;

/** A meter holding `comparisons`, good until `ms` from now. */
export function meterOf(comparisons: number, ms = Number.POSITIVE_INFINITY): FilterMeter {
  return {
    left: comparisons,
    clockAt: comparisons - CLOCK_EVERY,
    deadline: performance.now() + ms,
  };
}

/** Refills `meter` for the next event (no allocation on the ingest path). */
export function refill(meter: FilterMeter, comparisons: number, ms: number): void {
  meter.left = comparisons;
  meter.clockAt = comparisons - CLOCK_EVERY;
  meter.deadline = performance.now() + ms;
}

/** A meter that never runs out (filters checked on save, evaluations bounded elsewhere). */
export const unmetered = (): FilterMeter => meterOf(Number.POSITIVE_INFINITY);

export class FilterBudgetExceeded extends Error {
  constructor() {
    super("filter budget exceeded");
  }
}

// One instance: running out is a control-flow exit on a hot path, not a new error each time.
const EXCEEDED = new FilterBudgetExceeded();

/** Spends `units` comparisons; throws `FilterBudgetExceeded` past the meter's budget or time. */
export function charge(meter: FilterMeter, units: number): void {
  meter.left -= units;
  if (meter.left < 0) throw EXCEEDED;
  if (meter.left < meter.clockAt) {
    meter.clockAt = meter.left - CLOCK_EVERY;
    if (performance.now() > meter.deadline) throw EXCEEDED;
  }
}

/** Compiles a nested expression (operator object, partial object, array or scalar). */
export type CompileExpression = (expression: unknown, where: string) => ValueMatcher;

export class OperandError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `$regex` runs on RE2's linear-time engine, so no pattern can hang the process; only the first
 * 64 KiB of a string is searched, which bounds one test to a few milliseconds.
 */
export const REGEX_SUBJECT_MAX = 64 * 1024;
export const REGEX_PATTERN_MAX = 1024;
/** What starting one `$regex` search costs, in comparisons (~190 ns, against ~20 ns for a costly one). */
const REGEX_START = 8;

type Scalar = string | number | boolean | null;

export const isScalar = (value: unknown): value is Scalar =>
  value === null || ["string", "number", "boolean"].includes(typeof value);

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Strict equality for scalars, deep structural equality (key order ignored) otherwise. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  );
}

/**
 * A scalar or operator against an array field matches when any element matches. Every element
 * is charged up front (`weight` each: what one test costs), one subtraction per call.
 */
export function anyElement(
  meter: FilterMeter,
  resolved: Resolved,
  test: (value: unknown) => boolean,
  weight = 1,
): boolean {
  if (!resolved.found) return false;
  const { value } = resolved;
  if (!Array.isArray(value)) {
    charge(meter, weight);
    return test(value);
  }
  charge(meter, value.length * weight);
  return value.some(test);
}

/** `$neq`/`$nin` against an array field: no element matches (a missing field still fails). */
function noElement(meter: FilterMeter, resolved: Resolved, test: (value: unknown) => boolean) {
  return resolved.found && !anyElement(meter, resolved, test);
}

function eq(operand: unknown, meter: FilterMeter): ValueMatcher {
  if (isScalar(operand)) return (r) => anyElement(meter, r, (v) => v === operand);
  return (r) => r.found && deepEqual(r.value, operand);
}

function neq(operand: unknown, meter: FilterMeter): ValueMatcher {
  if (isScalar(operand)) return (r) => noElement(meter, r, (v) => v === operand);
  return (r) => r.found && !deepEqual(r.value, operand);
}

/**
 * A substring search runs through the text: one more comparison per 128 characters searched
 * (a native search covers them in about the time of one costly comparison).
 */
function includesCharged(meter: FilterMeter, text: string, part: string): boolean {
  charge(meter, text.length >> 7);
  return text.includes(part);
}

function membership(
  operand: unknown,
  where: string,
  op: string,
  meter: FilterMeter,
): (value: unknown) => boolean {
  if (typeof operand === "string") {
    return (v) => typeof v === "string" && includesCharged(meter, v, operand);
  }
  if (Array.isArray(operand) && operand.every(isScalar)) {
    // A set: one lookup per element whatever the operand's length (=== and the set agree on JSON values).
    const items = new Set(operand);
    return (v) => items.has(v as Scalar);
  }
  throw new OperandError(where, `${op} takes an array of scalars or a string`);
}

const ORDERINGS = {
  $gt: (a: number | string, b: number | string) => a > b,
  $gte: (a: number | string, b: number | string) => a >= b,
  $lt: (a: number | string, b: number | string) => a < b,
  $lte: (a: number | string, b: number | string) => a <= b,
};

function ordering(op: string, where: string, operand: unknown, meter: FilterMeter): ValueMatcher {
  if (typeof operand !== "number" && typeof operand !== "string") {
    throw new OperandError(where, `${op} takes a number or a string`);
  }
  const holds = ORDERINGS[op as keyof typeof ORDERINGS];
  return (r) =>
    anyElement(meter, r, (v) => typeof v === typeof operand && holds(v as never, operand));
}

function affix(op: string, where: string, operand: unknown, meter: FilterMeter): ValueMatcher {
  const options = typeof operand === "string" ? [operand] : operand;
  if (!Array.isArray(options) || options.length === 0 || !options.every(isString)) {
    throw new OperandError(where, `${op} takes a string or a non-empty array of strings`);
  }
  const test =
    op === "$startsWith"
      ? (v: string) => options.some((o) => v.startsWith(o))
      : (v: string) => options.some((o) => v.endsWith(o));
  return (r) => anyElement(meter, r, (v) => typeof v === "string" && test(v), options.length);
}

const isString = (value: unknown): value is string => typeof value === "string";

function contains(where: string, operand: unknown, meter: FilterMeter): ValueMatcher {
  if (typeof operand === "string") {
    return (r) =>
      anyElement(meter, r, (v) => typeof v === "string" && includesCharged(meter, v, operand));
  }
  if (isScalar(operand)) return (r) => anyElement(meter, r, (v) => v === operand);
  throw new OperandError(where, "$contains takes a string or another scalar");
}

function regex(where: string, operand: unknown, meter: FilterMeter): ValueMatcher {
  if (typeof operand !== "string" || operand.length > REGEX_PATTERN_MAX) {
    throw new OperandError(
      where,
      `$regex takes a pattern of at most ${REGEX_PATTERN_MAX} characters`,
    );
  }
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(operand);
  } catch (error) {
    throw new OperandError(where, `$regex is not a valid pattern: ${(error as Error).message}`);
  }
  const test = (v: unknown) => {
    if (typeof v !== "string") return false;
    // A search costs several comparisons to start, then grows with the text searched: one
    // per character.
    charge(meter, REGEX_START + Math.min(v.length, REGEX_SUBJECT_MAX));
    return pattern.test(v.length > REGEX_SUBJECT_MAX ? v.slice(0, REGEX_SUBJECT_MAX) : v);
  };
  return (r) => anyElement(meter, r, test);
}

function exist(where: string, operand: unknown): ValueMatcher {
  if (typeof operand !== "boolean") throw new OperandError(where, "$exist takes true or false");
  return (r) => r.found === operand;
}

function combination(op: string, where: string, operand: unknown, compile: CompileExpression) {
  if (!Array.isArray(operand) || operand.length === 0) {
    throw new OperandError(where, `${op} takes a non-empty array`);
  }
  const parts = operand.map((item, i) => compile(item, `${where}[${i}]`));
  return op === "$or"
    ? (r: Resolved) => parts.some((part) => part(r))
    : (r: Resolved) => parts.every((part) => part(r));
}

function not(where: string, operand: unknown, compile: CompileExpression): ValueMatcher {
  if (!isPlainObject(operand)) throw new OperandError(where, "$not takes one operator object");
  const inner = compile(operand, `${where}.$not`);
  return (r) => !inner(r);
}

/** Builds the predicate of one operator and its operand, or throws OperandError. */
export function compileOperator(
  op: string,
  operand: unknown,
  where: string,
  compile: CompileExpression,
  meter: FilterMeter,
): ValueMatcher {
  switch (op) {
    case "$eq":
      return eq(operand, meter);
    case "$neq":
      return neq(operand, meter);
    case "$in": {
      const test = membership(operand, where, op, meter);
      return (r) => anyElement(meter, r, test);
    }
    case "$nin": {
      const test = membership(operand, where, op, meter);
      return (r) => noElement(meter, r, test);
    }
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return ordering(op, where, operand, meter);
    case "$startsWith":
    case "$endsWith":
      return affix(op, where, operand, meter);
    case "$contains":
      return contains(where, operand, meter);
    case "$regex":
      return regex(where, operand, meter);
    case "$exist":
      return exist(where, operand);
    case "$or":
    case "$and":
      return combination(op, where, operand, compile);
    case "$not":
      return not(where, operand, compile);
    default:
      throw new OperandError(where, `unknown operator ${op}`);
  }
}
