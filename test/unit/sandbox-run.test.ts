// The sandbox as a grader sees it: values, expected errors, mutation, unserialisable results,
// time limits, and the process flags.
import { expect } from 'chai';
import { childArgs, permissionFlag, runChecks, runSandboxed, type SandboxCheck } from '../../src/sandbox/index.js';

const check = (id: string, args: unknown[], expected: { expect?: unknown; throws?: string }): SandboxCheck => ({ id, args, ...expected });

describe('sandbox: values and errors', () => {
  const source = `
function price(lines, cap) {
  if (typeof cap !== 'number' || cap < 0 || cap > 10000) throw new RangeError('cap outside 0..10000');
  if (!Array.isArray(lines)) throw new TypeError('lines must be an array');
  const total = lines.reduce((sum, { qty, unit }) => sum + qty * unit, 0);
  return { total: Math.min(total, cap), count: lines.length, flags: [total > cap, null, 'x'] };
}`;

  it('passes right values, fails wrong ones, matches expected errors by name', async () => {
    const { staticResult, checks } = await runSandboxed(source, 'price', [
      check('ok', [[{ qty: 2, unit: 3 }], 100], { expect: { count: 1, total: 6, flags: [false, null, 'x'] } }),
      check('wrong', [[{ qty: 2, unit: 3 }], 100], { expect: { total: 7, count: 1, flags: [false, null, 'x'] } }),
      check('bool_is_not_one', [[], 5], { expect: { total: 0, count: 0, flags: [0, null, 'x'] } }),
      check('range', [[], 20000], { throws: 'RangeError' }),
      check('wrong_error', [{}, 5], { throws: 'RangeError' }),
      check('unexpected_error', [{}, 5], { expect: 1 }),
      check('expected_error_not_thrown', [[], 5], { throws: 'RangeError' }),
    ]);
    expect(staticResult.ok).to.equal(true);
    expect(checks.map((c) => [c.id, c.status])).to.deep.equal([
      ['ok', 'passed'],
      ['wrong', 'wrong-value'],
      ['bool_is_not_one', 'wrong-value'],
      ['range', 'passed'],
      ['wrong_error', 'wrong-error'],
      ['unexpected_error', 'wrong-error'],
      ['expected_error_not_thrown', 'wrong-value'],
    ]);
    expect(checks[1]!.detail).to.equal('expected {"total":7,"count":1,"flags":[false,null,"x"]}, got {"total":6,"count":1,"flags":[false,null,"x"]}');
    expect(checks[4]!.detail).to.equal('expected RangeError, threw TypeError: lines must be an array');
    expect(checks[6]!.detail).to.match(/^expected RangeError to be thrown, returned/);
  });

  it('runs ordinary computational code with the built-ins it is promised', async () => {
    const source = `const WEIGHTS = Object.freeze({ a: 2, b: 1 });
function stats(words, opts = {}) {
  const counts = {};
  for (const w of words) counts[w] = (counts[w] || 0) + 1;
  const byLen = new Map(); const seen = new Set(words);
  words.forEach((w) => byLen.set(w.length, [...(byLen.get(w.length) ?? []), w]));
  const [first, ...rest] = Object.keys(counts).sort();
  const pairs = Object.entries(counts).map(([k, n]) => \`\${k}=\${n * (WEIGHTS[k] ?? 1)}\`);
  let parsed; try { parsed = JSON.parse(opts.raw); } catch (e) { parsed = e.name; }
  console.log('ignored');
  return { first, rest, pairs, distinct: seen.size, lens: [...byLen.keys()], parsed,
    money: Number((0.1 + 0.2).toFixed(2)), tag: String(words.length).padStart(3, '0'), re: /^a+$/.test(first),
    own: Object.prototype.hasOwnProperty.call(counts, 'a'), max: Math.max(...words.map((w) => w.length)),
    merged: Object.assign({}, { x: 1 }, { y: parseInt('2', 10) }), ok: isFinite(1) && !isNaN(parseFloat('1.5')) };
}`;
    const { staticResult, checks } = await runSandboxed(source, 'stats', [
      check('ordinary', [['b', 'a', 'a', 'cc'], { raw: '{' }], {
        expect: {
          first: 'a',
          rest: ['b', 'cc'],
          pairs: ['b=1', 'a=4', 'cc=1'],
          distinct: 3,
          lens: [1, 2],
          parsed: 'SyntaxError',
          money: 0.3,
          tag: '004',
          re: true,
          own: true,
          max: 2,
          merged: { x: 1, y: 2 },
          ok: true,
        },
      }),
    ]);
    expect(staticResult.reason).to.equal(null);
    expect(checks[0]!.detail).to.equal('ok');
  });

  it('does not run an artifact that fails the static check', async () => {
    const { staticResult, checks } = await runSandboxed('function f() { return process.pid; }', 'f', [check('a', [], { expect: 1 })]);
    expect(staticResult.ok).to.equal(false);
    expect(checks).to.deep.equal([
      { id: 'a', passed: false, status: 'invalid', detail: 'not run: banned construct: identifier `process` (host access) at line 1' },
    ]);
  });

  it('fails a check whose input the function mutated, however it was changed', async () => {
    const mutations = ['a.push(1)', 'a.sort()', 'o.n.m = 2', 'delete o.k', 'o.k = undefined', 'o.extra = 1', 'a[0] = a[0]', 'a.reverse()'];
    for (const mutation of mutations) {
      const source = `function f(a, o) { ${mutation}; return 0; }`;
      const [result] = await runChecks(source, 'f', [check('m', [[3, 1, 2], { k: 1, n: { m: 1 } }], { expect: 0 })]);
      const expected = mutation === 'a[0] = a[0]' ? 'passed' : 'mutated'; // writing the same value back changes nothing
      expect(result!.status, mutation).to.equal(expected);
    }
  });

  it('names the mutated argument even when the function then throws the expected error', async () => {
    const [result] = await runChecks('function f(a, b) { b.x = 1; throw new RangeError("no"); }', 'f', [check('m', [1, {}], { throws: 'RangeError' })]);
    expect(result).to.include({ status: 'mutated', passed: false });
    expect(result!.detail).to.match(/^argument 1 was mutated/);
  });

  it('gives every check a fresh copy of its inputs (no state carries over)', async () => {
    const source = 'let calls = 0;\nfunction f(a) { calls += 1; return [calls, a.length]; }';
    const results = await runChecks(source, 'f', [check('one', [[1]], { expect: [1, 1] }), check('two', [[1, 2]], { expect: [1, 2] })]);
    expect(results.map((r) => r.status)).to.deep.equal(['passed', 'passed']);
  });

  it('refuses return values that are not plain JSON', async () => {
    const cases: [string, RegExp][] = [
      ['return undefined;', /returned undefined/],
      ['return NaN;', /non-finite number \(NaN\)/],
      ['return [1, , 3];', /sparse array/],
      ['return new Map();', /a Map/],
      ['return new Set([1]);', /a Set/],
      ['return f;', /type function/],
      ['return Symbol("s");', /type symbol/],
      ['return 10n;', /type bigint/],
      ['const o = {}; o.self = o; return o;', /deeper than 256 levels \(or circular\)/],
      ['return "x".repeat(2000000);', /larger than 1000000 characters/],
      ['return { get v() { throw new Error("no"); } };', /properties throw/],
    ];
    for (const [body, why] of cases) {
      const [result] = await runChecks(`function f() { ${body} }`, 'f', [check('u', [], { expect: null })]);
      expect(result!.status, body).to.equal('unserialisable');
      expect(result!.detail, body).to.match(why);
    }
  });

  it('returns a Promise as unserialisable (async functions are not awaited)', async () => {
    const [result] = await runChecks('async function f() { return 1; }', 'f', [check('p', [], { expect: 1 })]);
    expect(result).to.include({ status: 'unserialisable', detail: 'returned a Promise, not a plain JSON value' });
  });

  it('reports load errors and a name that is not a function', async () => {
    const [thrown] = await runChecks('throw new TypeError("at load");\nfunction f() {}', 'f', [check('l', [], { expect: 1 })]);
    expect(thrown).to.include({ status: 'load-error', detail: 'the artifact threw while being defined: TypeError: at load' });
    const [number] = await runChecks('const f = 3;', 'f', [check('n', [], { expect: 1 })]);
    expect(number).to.include({ status: 'not-a-function', detail: '`f` is number, not a function' });
    const [syntax] = await runChecks('function f( {', 'f', [check('s', [], { expect: 1 })]);
    expect(syntax!.status).to.equal('load-error');
  });

  it('matches a non-Error throw by nothing, and Error subclasses by their name', async () => {
    const results = await runChecks('function f(k) { if (k === 1) throw "text"; const e = new Error("custom"); e.name = "ValueError"; throw e; }', 'f', [
      check('text', [1], { throws: 'Error' }),
      check('named', [2], { throws: 'ValueError' }),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['wrong-error', 'passed']);
    expect(results[0]!.detail).to.include('a non-Error value was thrown (string)');
  });
});

describe('sandbox: time limits', () => {
  it('times out one endless check and still runs the next one', async () => {
    const source = 'function f(n) { if (n === 0) { while (true) {} } return n; }';
    const started = Date.now();
    const results = await runChecks(source, 'f', [check('loop', [0], { expect: 0 }), check('after', [2], { expect: 2 })], { checkTimeoutMs: 300 });
    expect(results.map((r) => r.status)).to.deep.equal(['timeout', 'passed']);
    // the second check ran, so the 300 ms limit, not the 3 s budget, stopped the first
    expect(Date.now() - started).to.be.below(30_000); // loose: far below a hang, whatever the machine's load
  });

  it('fails every unfinished check as a timeout when the run budget is spent', async () => {
    const source = 'function f(n) { while (true) {} }';
    const checks = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => check(id, [1], { expect: 1 }));
    const started = Date.now();
    const results = await runChecks(source, 'f', checks, { runTimeoutMs: 1000, checkTimeoutMs: 400 });
    expect(results.map((r) => r.status)).to.deep.equal(Array(6).fill('timeout'));
    expect(results.at(-1)!.detail).to.equal('timeout: the run exceeded its 1000 ms budget');
    expect(Date.now() - started).to.be.below(30_000); // loose: process start-up on a loaded machine is not budgeted
  });

  it('enforces the 3 s run budget by default', async () => {
    const started = Date.now();
    const results = await runChecks(
      'function f() { while (true) {} }',
      'f',
      ['a', 'b', 'c', 'd'].map((id) => check(id, [], { expect: 1 })),
    );
    const elapsed = Date.now() - started;
    expect(results.every((r) => r.status === 'timeout')).to.equal(true);
    expect(elapsed).to.be.within(2900, 30_000); // the 3 s budget, not a hang; start-up under load is not budgeted
  });
});

describe('sandbox: process flags', () => {
  it('picks the permission flag by Node version', () => {
    expect(permissionFlag('20.19.0')).to.equal('--experimental-permission');
    expect(permissionFlag('v22.12.0')).to.equal('--experimental-permission');
    expect(permissionFlag('22.13.0')).to.equal('--permission');
    expect(permissionFlag('23.4.0')).to.equal('--experimental-permission');
    expect(permissionFlag('23.5.0')).to.equal('--permission');
    expect(permissionFlag('24.0.0')).to.equal('--permission');
  });

  it('grants nothing: no --allow-* flag, code generation off, a heap cap', () => {
    const args = childArgs('0', 64);
    expect(args.filter((a) => a.startsWith('--allow'))).to.deep.equal([]);
    expect(args).to.include.members([permissionFlag(), '--disallow-code-generation-from-strings', '--frozen-intrinsics', '--max-old-space-size=64']);
  });
});
