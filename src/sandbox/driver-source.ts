// The code that runs INSIDE the vm context, before and around the artifact. It is trusted but
// shares the realm with the artifact, so it captures every built-in it needs before the artifact
// runs, never calls a method through a prototype the artifact could have replaced, and hands the
// child only a string (JSON text it built by concatenating primitives). Arguments arrive as JSON
// text and are parsed here, so they are objects of this realm: the classic
// `arg.constructor.constructor('return process')()` reaches this realm's Function, which cannot
// compile strings. Kept free of backticks, backslashes and "${" so it can live in a plain template literal.

/** The driver: `(function (argsText, maxText, factory) { ... })`, returning the check's result as JSON text. */
export const DRIVER_SOURCE = `(function (argsText, maxText, factory) {
  'use strict';
  var G = globalThis, ObjectProto = Object.prototype, ErrorProto = Error.prototype;
  var keys = Object.keys, getProto = Object.getPrototypeOf, hasOwn = Object.hasOwn;
  var defineProperty = Object.defineProperty, freeze = Object.freeze, ownKeys = Reflect.ownKeys;
  var apply = Reflect.apply, isArray = Array.isArray, stringify = JSON.stringify, parse = JSON.parse;
  var isFiniteNumber = Number.isFinite, slice = String.prototype.slice;
  var KNOWN = [[Map.prototype, 'a Map'], [Set.prototype, 'a Set'], [Promise.prototype, 'a Promise'],
    [RegExp.prototype, 'a RegExp'], [Date.prototype, 'a Date'], [ErrorProto, 'an Error']];

  // Only computational built-ins stay; everything else (eval, Function, Proxy, Reflect, Date,
  // Intl, WebAssembly, SharedArrayBuffer, typed arrays whose memory lies outside the heap cap...) goes.
  var ALLOWED = { Object: 1, Array: 1, Number: 1, String: 1, Boolean: 1, Symbol: 1, BigInt: 1, Math: 1,
    JSON: 1, Map: 1, Set: 1, WeakMap: 1, WeakSet: 1, RegExp: 1, Error: 1, EvalError: 1, RangeError: 1,
    ReferenceError: 1, SyntaxError: 1, TypeError: 1, URIError: 1, AggregateError: 1, parseInt: 1,
    parseFloat: 1, isNaN: 1, isFinite: 1, NaN: 1, Infinity: 1, undefined: 1, encodeURIComponent: 1,
    decodeURIComponent: 1, encodeURI: 1, decodeURI: 1 };
  var names = ownKeys(G);
  for (var n = 0; n < names.length; n++) {
    if (typeof names[n] !== 'string' || !hasOwn(ALLOWED, names[n])) { try { delete G[names[n]]; } catch (e) { /* non-configurable */ } }
  }
  var noop = function () {};
  G.console = freeze({ log: noop, info: noop, warn: noop, error: noop, debug: noop });
  // Node formats this realm's stack traces through Error.prepareStackTrace when it is set.
  defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });

  var BAD = {}, badWhy = '';
  function bad(why) { badWhy = why; throw BAD; }
  function tooLarge() { bad('a value larger than ' + maxText + ' characters of JSON'); }
  function describe(v) {
    var p = getProto(v);
    for (var k = 0; k < KNOWN.length; k++) if (p === KNOWN[k][0]) return KNOWN[k][1];
    return 'an object that is not a plain object';
  }
  function ser(v, depth) {
    var t = typeof v, s;
    if (v === null) s = 'null';
    else if (t === 'string') s = stringify(v);
    else if (t === 'boolean') s = v ? 'true' : 'false';
    else if (t === 'number') { if (!isFiniteNumber(v)) bad('a non-finite number (' + v + ')'); s = stringify(v); }
    else if (t !== 'object') bad(t === 'undefined' ? 'undefined' : 'a value of type ' + t);
    else if (depth > 256) bad('a value nested deeper than 256 levels (or circular)');
    else if (isArray(v)) {
      if (v.length > maxText) bad('an array too large to return');
      s = '[';
      for (var i = 0; i < v.length; i++) {
        if (!hasOwn(v, i)) bad('a sparse array');
        s += (i > 0 ? ',' : '') + ser(v[i], depth + 1);
        if (s.length > maxText) tooLarge();
      }
      s += ']';
    } else {
      var p = getProto(v);
      if (p !== ObjectProto && p !== null) bad(describe(v));
      var ks = keys(v);
      s = '{';
      for (var j = 0; j < ks.length; j++) {
        s += (j > 0 ? ',' : '') + stringify(ks[j]) + ':' + ser(v[ks[j]], depth + 1);
        if (s.length > maxText) tooLarge();
      }
      s += '}';
    }
    if (s.length > maxText) tooLarge();
    return s;
  }
  function trySer(v) {
    try { return ser(v, 0); } catch (e) { if (e !== BAD) badWhy = 'a value whose properties throw when read'; return null; }
  }
  function errorInfo(e) {
    var isError = false, p = e, name = null, message = '';
    for (var hops = 0; hops < 64 && ((typeof p === 'object' && p !== null) || typeof p === 'function'); hops++) {
      p = getProto(p);
      if (p === ErrorProto) { isError = true; break; }
    }
    if (isError) {
      try { var nm = e.name, msg = e.message; if (typeof nm === 'string') name = nm; if (typeof msg === 'string') message = apply(slice, msg, [0, 500]); } catch (x) { /* keep defaults */ }
    } else message = 'a non-Error value was thrown (' + (e === null ? 'null' : typeof e) + ')';
    return '"name":' + (name === null ? 'null' : stringify(name)) + ',"message":' + stringify(message);
  }

  var args = parse(argsText), before = [];
  for (var a = 0; a < args.length; a++) before[a] = trySer(args[a]);
  function mutated() {
    var list = '';
    for (var b = 0; b < args.length; b++) if (trySer(args[b]) !== before[b]) list += (list ? ',' : '') + b;
    return '[' + list + ']';
  }

  var fn;
  try { fn = factory(); } catch (e) { return '{"status":"load-error",' + errorInfo(e) + '}'; }
  if (typeof fn !== 'function') return '{"status":"not-a-function","type":' + stringify(typeof fn) + '}';
  var value;
  try { value = apply(fn, undefined, args); } catch (e) { return '{"status":"threw",' + errorInfo(e) + ',"mutated":' + mutated() + '}'; }
  var text = trySer(value), why = badWhy, changed = mutated();
  if (text === null) return '{"status":"unserialisable","why":' + stringify(why) + ',"mutated":' + changed + '}';
  return '{"status":"returned","value":' + text + ',"mutated":' + changed + '}';
})`;
