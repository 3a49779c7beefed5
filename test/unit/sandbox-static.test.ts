// The static half of the sandbox: what it refuses (naming the construct and its line) and what
// ordinary computational code it must let through.
import { expect } from 'chai';
import { staticCheck } from '../../src/sandbox/index.js';

const ORDINARY = `
const RATES = Object.freeze({ standard: 0.2, reduced: 0.05 });
function summarize(lines, options = {}) {
  if (!Array.isArray(lines)) throw new TypeError('lines must be an array');
  const counts = {};
  const seen = new Set();
  const byKind = new Map();
  let total = 0;
  for (const { sku, qty = 1, price, kind } of lines) {
    if (qty < 0 || qty > 10000) throw new RangeError(\`bad quantity \${qty}\`);
    counts[sku] = (counts[sku] || 0) + qty;
    seen.add(sku);
    byKind.set(kind, [...(byKind.get(kind) ?? []), sku]);
    total += Math.round(price * qty * (1 + (RATES[kind] ?? 0)) * 100) / 100;
  }
  const keys = Object.keys(counts).sort((a, b) => a.localeCompare(b));
  const entries = Object.entries(counts).filter(([, n]) => n > 1).map(([k, n]) => k + ':' + n);
  const own = Object.prototype.hasOwnProperty.call(counts, 'x');
  const clean = String(options.label ?? '').trim().replace(/\\s+/g, ' ').toLowerCase();
  let parsed;
  try { parsed = JSON.parse(options.raw ?? 'null'); } catch (e) { parsed = e instanceof SyntaxError ? 'bad' : null; }
  console.log('debug output is allowed and discarded');
  const merged = Object.assign({}, { keys }, { entries });
  label: for (let i = 0; i < 3; i++) { if (i === 1) continue label; }
  return { ...merged, total: Number(total.toFixed(2)), distinct: seen.size, kinds: [...byKind.keys()], own, clean, parsed,
    max: Math.max(...keys.map((k) => k.length), 0), ok: isFinite(total) && !isNaN(parseFloat('1.5')) && parseInt('7', 10) === 7 };
}
`;

describe('sandbox static check: ordinary code', () => {
  it('allows loops, destructuring, spread, Map/Set, RegExp, templates, JSON, try/catch, computed keys, console', () => {
    const result = staticCheck(ORDINARY, 'summarize');
    expect(result.violations).to.deep.equal([]);
    expect(result.reason).to.equal(null);
    expect(result.ok).to.equal(true);
  });

  it('accepts const/let arrow functions and function expressions as the function', () => {
    expect(staticCheck('const f = (a) => a * 2;', 'f').ok).to.equal(true);
    expect(staticCheck('let f = function (a) { return a; };', 'f').ok).to.equal(true);
    expect(staticCheck('var f = function g(a) { return this === undefined ? a : 0; };', 'f').ok).to.equal(true);
  });

  it('requires the function at top level', () => {
    const result = staticCheck('function g() { function f() {} return f; }', 'f');
    expect(result.ok).to.equal(false);
    expect(result.definesFunction).to.equal(false);
    expect(result.reason).to.equal('no top-level function `f` is defined');
  });

  it('reports syntax errors with the line of the artifact (not of the strict prefix)', () => {
    const result = staticCheck('function f() {\n  return 1 +;\n}', 'f');
    expect(result.ok).to.equal(false);
    expect(result.syntaxError).to.match(/line 2, column/);
    expect(result.reason).to.match(/^not valid strict-mode JavaScript/);
  });

  it('parses as strict code: octal literals and duplicate parameters are syntax errors', () => {
    expect(staticCheck('function f() { return 010; }', 'f').syntaxError).to.not.equal(null);
    expect(staticCheck('function f(a, a) { return a; }', 'f').syntaxError).to.not.equal(null);
  });
});

// [source, construct the reason must name, line]
const BANNED: [string, string, number][] = [
  ['import fs from "fs";\nfunction f() {}', 'import declaration', 1],
  ['function f() {}\nexport default f;', 'export declaration', 2],
  ['function f() { return import("fs"); }', 'import() expression', 1],
  ['function f() { return import.meta; }', 'import.meta', 1],
  ['function f() {\n  const fs = require("fs");\n}', 'identifier `require`', 2],
  ['function f() { return process.env; }', 'identifier `process`', 1],
  ['function f() { return globalThis; }', 'identifier `globalThis`', 1],
  ['function f() { return global; }', 'identifier `global`', 1],
  ['function f() { return window; }', 'identifier `window`', 1],
  ['function f() { return self; }', 'identifier `self`', 1],
  ['function f() { return eval("1"); }', 'identifier `eval`', 1],
  ['function f() { return new Function("return 1"); }', 'identifier `Function`', 1],
  ['function f() { return AsyncFunction; }', 'identifier `AsyncFunction`', 1],
  ['function f(x) { return x.constructor; }', 'property `constructor`', 1],
  ["function f(x) { return x['constructor']; }", 'property `constructor`', 1],
  ['function f(x) { return x[`constructor`]; }', 'property `constructor`', 1],
  ['function f(x) { const { constructor: C } = x; return C; }', 'property `constructor`', 1],
  ['function f(x) { return x?.constructor; }', 'property `constructor`', 1],
  ['function f(x) { return x.__proto__; }', 'property `__proto__`', 1],
  ['function f() { return { __proto__: null }; }', 'property `__proto__`', 1],
  ['function f() { const __x = 1; return __x; }', 'identifier `__x`', 1],
  ['function f() { return __dirname; }', 'identifier `__dirname`', 1],
  ['function f() {\n  Object.prototype.polluted = 1;\n}', 'property `prototype`', 2],
  ['function f() { Array.prototype.x = 1; }', 'property `prototype`', 1],
  ['function f() { return Object.assign(Array.prototype, {}); }', 'property `prototype`', 1],
  ['function f(x) { return Object.getPrototypeOf(x); }', 'property `getPrototypeOf`', 1],
  ['function f(x) { Object.setPrototypeOf(x, null); }', 'property `setPrototypeOf`', 1],
  ['function f(x) { Object.defineProperty(x, "a", {}); }', 'property `defineProperty`', 1],
  ['function f() { return arguments.callee; }', 'property `callee`', 1],
  ['function f() { return f.caller; }', 'property `caller`', 1],
  ['function f() {}\nwith (Math) { f(); }', 'with statement', 2],
  ['class A {}\nfunction f() { return new A(); }', 'class', 1],
  ['function f() { return class {}; }', 'class', 1],
  ['function f() { return { m() { return super.x; } }; }', 'super', 1],
  ['function f() { debugger; }', 'debugger statement', 1],
  ['const g = this;\nfunction f() {}', '`this` outside a function', 1],
  ['const g = () => this;\nfunction f() {}', '`this` outside a function', 1],
  ['function f() { return new Proxy({}, {}); }', 'identifier `Proxy`', 1],
  ['function f() { return Reflect.ownKeys({}); }', 'identifier `Reflect`', 1],
  ['function f() { return Date.now(); }', 'identifier `Date`', 1],
  ['function f() { return Intl.NumberFormat; }', 'identifier `Intl`', 1],
  ['function f() { setTimeout(f, 1); }', 'identifier `setTimeout`', 1],
  ['function f() { return fetch("http://x"); }', 'identifier `fetch`', 1],
  ['function f() { return WebAssembly; }', 'identifier `WebAssembly`', 1],
  ['function f() { return pro\\u0063ess; }', 'identifier `process`', 1],
];

describe('sandbox static check: banned constructs', () => {
  for (const [source, construct, line] of BANNED) {
    it(`refuses ${construct} in ${JSON.stringify(source.split('\n').find((l) => l.trim() !== '') ?? source).slice(0, 60)}`, () => {
      const result = staticCheck(source, 'f');
      expect(result.ok).to.equal(false);
      const hit = result.violations.find((v) => v.construct.startsWith(construct));
      expect(hit, JSON.stringify(result)).to.not.equal(undefined);
      expect(hit!.line).to.equal(line);
      expect(result.reason).to.include(construct).and.to.include(`at line ${line}`);
    });
  }

  it('lists at most five violations and counts the rest', () => {
    const source = `function f() { ${Array.from({ length: 8 }, () => 'eval;').join(' ')} }`;
    const result = staticCheck(source, 'f');
    expect(result.violations).to.have.length(8);
    expect(result.reason).to.match(/and 3 more$/);
  });

  it('allows only the X.prototype.method.call/apply reading idiom', () => {
    expect(staticCheck('function f(o) { return Object.prototype.toString.call(o); }', 'f').ok).to.equal(true);
    expect(staticCheck('function f(a) { return Array.prototype.slice.apply(a, [1]); }', 'f').ok).to.equal(true);
    expect(staticCheck('function f() { return Array.prototype.slice; }', 'f').ok).to.equal(false);
    expect(staticCheck('function f(a) { return Array.prototype.constructor.call(a); }', 'f').ok).to.equal(false);
  });

  it('lets non-literal computed keys through (the runtime layer answers for them)', () => {
    expect(staticCheck("function f(x) { return x['constr' + 'uctor']; }", 'f').ok).to.equal(true);
  });
});
