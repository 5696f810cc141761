// Lockdown of a reusable realm: what makes one QuickJS context safe to run the same code again.
// Everything a run could leave behind must be unreachable from the next one. Top-level bindings
// are fresh because the code is a function body called once per run (sandbox.realm.ts); what
// remains shared is the realm itself, so every object reachable from it (the global object, every
// built-in, and the hidden intrinsics only syntax reaches) is frozen here, after the prelude and
// before any user code. The only mutable state left in the realm is the PRNG behind Math.random.

/**
 * Evaluated once per reusable realm. Takes no arguments and returns nothing; any failure throws
 * and the realm is not used.
 */
export const LOCKDOWN_SOURCE = `(function () {
  "use strict";
  const { freeze, getOwnPropertyDescriptor, defineProperty, getPrototypeOf } = Object;
  const ownKeys = Reflect.ownKeys;
  // A finalization callback of one run would run during a later one; weak references would let
  // a run observe when an earlier run's objects are collected. Neither is of use to a script.
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;

  // The "override mistake": once a prototype's data property is frozen, assigning a property of
  // the same name to an ordinary object fails (obj.toString = ..., err.name = ... in an Error
  // subclass, Object.assign with such a key). These keys become accessors whose setter defines
  // the property on the object assigned to, so such code keeps working; the getter returns the
  // original value, so there is still nothing to change.
  const tame = (proto, keys) => {
    for (const key of keys) {
      const d = getOwnPropertyDescriptor(proto, key);
      if (!d || !("value" in d) || !d.configurable) continue;
      const value = d.value;
      defineProperty(proto, key, {
        configurable: false,
        enumerable: d.enumerable,
        get() { return value; },
        set(next) {
          if (this === proto || (typeof this !== "object" && typeof this !== "function") || this === null) {
            throw new TypeError("cannot assign to read only property '" + String(key) + "' of a built-in");
          }
          defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
        },
      });
    }
  };
  tame(Object.prototype, ["constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
    "toLocaleString", "toString", "valueOf"]);
  // Only where assigning is common: an accessor on a hot method (push, then, call) would slow
  // every call of it.
  tame(Function.prototype, ["constructor", "toString"]);
  tame(Array.prototype, ["constructor", "toString"]);
  for (const E of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError,
    InternalError, AggregateError]) {
    tame(E.prototype, ["constructor", "name", "message", "toString"]);
  }

  // Intrinsics no global names: reached only through syntax or the objects it creates.
  const hidden = [
    function* () {}, async function () {}, async function* () {}, () => {},
    [][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](),
    ""[Symbol.iterator](), "a".matchAll(/a/g), (function* () {})(), (async function* () {})(),
    (function () { return arguments; })(), Promise.resolve(),
  ];
  if (typeof Iterator === "function") {
    hidden.push(Iterator.prototype.map.call([][Symbol.iterator](), (x) => x));
    hidden.push(Iterator.from({ next() { return { done: true }; } }));
  }
  const seen = new Set();
  const pending = [globalThis, ...hidden];
  while (pending.length > 0) {
    const value = pending.pop();
    if ((typeof value !== "object" && typeof value !== "function") || value === null) continue;
    if (seen.has(value)) continue;
    seen.add(value);
    freeze(value);
    pending.push(getPrototypeOf(value));
    for (const key of ownKeys(value)) {
      const d = getOwnPropertyDescriptor(value, key);
      if ("value" in d) pending.push(d.value);
      else pending.push(d.get, d.set);
    }
  }
})`;
