import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { PYTHON_BANNED_NAMES, PYTHON_BANNED_NODES } from '../../src/python-grader-script.js';
import { gradePython, PythonGradeStalledError, type PythonCheck, type PythonGrade } from '../../src/python-grader.js';
import { gradeProtocolCase, gradeProtocolJson, JSON_SHAPE_CHECK, protocolPassed, pythonEqual } from '../../src/protocol-grading.js';
import type { ProtocolCase } from '../../src/protocol/types.js';

const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;
const NO_PYTHON = 'skipped: python3 is not on PATH, so no Python artifact can be graded';

const double = 'def f(x):\n    return x * 2\n';
const one: PythonCheck[] = [{ args: [2], want: 4 }];
const grade = (code: string, checks: PythonCheck[] = one, fn = 'f'): Promise<PythonGrade> => gradePython(code, fn, checks);

/** Invalid, with no checks run, and an error that names `what`. */
function expectRefused(g: PythonGrade, what: RegExp): void {
  expect(g.valid, JSON.stringify(g)).to.equal(false);
  expect(g.checks).to.deep.equal([]);
  expect(g.error).to.match(what);
}

/** Valid; the checks' pass marks in order. */
function expectPasses(g: PythonGrade, passes: boolean[]): void {
  expect(g.valid, JSON.stringify(g)).to.equal(true);
  expect(g.error).to.equal(null);
  expect(g.checks.map((c) => c.passed)).to.deep.equal(passes);
}

describe(`Python artifact grader (real python3, the published protocol rules)${HAS_PYTHON ? '' : ` (${NO_PYTHON})`}`, function () {
  this.timeout(30_000);
  before(function () {
    if (!HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so no Python artifact can be graded
  });

  it('a correct function passes; a wrong value fails its check and reports what it returned', async () => {
    const g = await grade(double, [
      { args: [2], want: 4 },
      { args: [3], want: 7 },
    ]);
    expectPasses(g, [true, false]);
    expect(g.checks[1]).to.deep.include({ check: 1, actual: 6, mutated_input: false });
  });

  describe('the syntax screen: each banned node', () => {
    const sources: Record<(typeof PYTHON_BANNED_NODES)[number], string> = {
      Import: 'import math\ndef f(x):\n    return x * 2\n',
      ImportFrom: 'from math import floor\ndef f(x):\n    return x * 2\n',
      ClassDef: 'class Box:\n    pass\ndef f(x):\n    return x * 2\n',
      Global: 'n = 0\ndef f(x):\n    global n\n    return x * 2\n',
      Nonlocal: 'def f(x):\n    k = 2\n    def g():\n        nonlocal k\n        return k\n    return x * g()\n',
      With: 'def f(x):\n    with x:\n        pass\n    return x * 2\n',
      AsyncWith: 'async def g(x):\n    async with x:\n        pass\ndef f(x):\n    return x * 2\n',
    };
    for (const node of PYTHON_BANNED_NODES) {
      it(`${node} makes the artifact invalid, even where it is never run`, async () => {
        expectRefused(await grade(sources[node]), new RegExp(`\\b${node}\\b is not allowed`));
      });
    }
  });

  describe('the syntax screen: each banned name', () => {
    for (const name of PYTHON_BANNED_NAMES) {
      it(`${name} is refused (mentioned, not called: the screen reads names)`, async () => {
        expectRefused(await grade(`def f(x):\n    unused = ${name}\n    return x * 2\n`), new RegExp(`the name '${name}' is not allowed`));
      });
    }
    it('a name containing __ is refused (__import__, __builtins__, a__b)', async () => {
      for (const name of ['__import__', '__builtins__', 'a__b']) {
        expectRefused(await grade(`def f(x):\n    unused = ${name}\n    return x * 2\n`), new RegExp(`the name '${name}' is not allowed`));
      }
    });
    it('__name__ is allowed (the artifact module is not __main__)', async () => {
      expectPasses(await grade('def f():\n    return __name__ != "__main__"\n', [{ args: [], want: true }]), [true]);
    });
    it('an attribute starting with _ is refused', async () => {
      expectRefused(await grade('def f(x):\n    return x._private * 2\n'), /the attribute '_private' is not allowed/);
      expectRefused(await grade('def f(x):\n    return (1).__class__\n'), /the attribute '__class__' is not allowed/);
    });
  });

  describe('the builtins an artifact sees', () => {
    it('divmod is among them', async () => {
      expectPasses(await grade('def f(a, b):\n    return list(divmod(a, b))\n', [{ args: [17, 5], want: [3, 2] }]), [true]);
    });
    it('a builtin outside the list (print, map) fails the check with NameError; the artifact is still valid', async () => {
      for (const body of ['print(x)', 'list(map(str, x))']) {
        const g = await grade(`def f(x):\n    ${body}\n    return 1\n`, [{ args: [[1]], want: 1 }]);
        expectPasses(g, [false]);
        expect(g.checks[0]).to.deep.include({ exception: 'NameError' });
      }
    });
  });

  describe('checks', () => {
    it('mutating an input fails the check even when the return value is right', async () => {
      const g = await grade('def f(xs):\n    xs.append(0)\n    return 3\n', [{ args: [[1, 2]], want: 3 }]);
      expectPasses(g, [false]);
      expect(g.checks[0]).to.deep.include({ actual: 3, mutated_input: true });
    });
    it('the same input is given to each check fresh (a mutation in one check does not leak into the next)', async () => {
      const g = await grade('def f(xs):\n    return len(xs)\n', [
        { args: [[1, 2]], want: 2 },
        { args: [[1, 2]], want: 2 },
      ]);
      expectPasses(g, [true, true]);
    });
    it('an expected exception matches by class name: the right name passes, a wrong name fails', async () => {
      const code = 'def f(x):\n    if x < 0:\n        raise ValueError("negative")\n    return x\n';
      const g = await grade(code, [
        { args: [-1], raises: 'ValueError' },
        { args: [-1], raises: 'TypeError' },
      ]);
      expectPasses(g, [true, false]);
      expect(g.checks.map((c) => c.exception)).to.deep.equal(['ValueError', 'ValueError']);
    });
    it('raising when a value was wanted fails; returning when an exception was wanted fails', async () => {
      const code = 'def f(x):\n    if x < 0:\n        raise ValueError("negative")\n    return x\n';
      const g = await grade(code, [
        { args: [-1], want: 1 },
        { args: [1], raises: 'ValueError' },
      ]);
      expectPasses(g, [false, false]);
      expect(g.checks[0]).to.deep.include({ exception: 'ValueError' });
      expect(g.checks[1]).to.deep.include({ actual: 1 });
    });
    it("comparison is Python's ==: True == 1 == 1.0, but a tuple is not the list JSON wants", async () => {
      expectPasses(await grade('def f(x):\n    return x > 0\n', [{ args: [5], want: 1 }]), [true]);
      expectPasses(await grade('def f(x):\n    return x / 2\n', [{ args: [4], want: 2 }]), [true]);
      const g = await grade('def f(x):\n    return (x, x)\n', [{ args: [1], want: [1, 1] }]);
      expectPasses(g, [false]);
      expect(g.checks[0]!.actual).to.deep.equal([1, 1]);
    });
    it('a return value JSON cannot carry (a set) leaves no report: the grade is invalid', async () => {
      expectRefused(await grade('def f(x):\n    return {x}\n', [{ args: [1], want: [1] }]), /not JSON serializable/);
    });
    it('NaN comes back as text, not as a JSON parse failure', async () => {
      const g = await grade('def f(x):\n    return float("nan")\n', [{ args: [1], want: 1 }]);
      expectPasses(g, [false]);
      expect(g.checks[0]!.actual).to.equal('nan');
    });
  });

  describe('invalid artifacts', () => {
    it('an infinite loop is invalid with TimeoutError at 3 s of CPU time (process killed)', async function () {
      this.timeout(60_000);
      const started = Date.now();
      const g = await grade('def f(x):\n    while True:\n        pass\n');
      expectRefused(g, /^TimeoutError: the artifact did not finish within 3 s of CPU time/);
      // One thread cannot use 3 s of CPU in less wall time; on a loaded machine it takes longer.
      expect(Date.now() - started).to.be.at.least(2900);
    });
    it('the wall-clock limit is no verdict: PythonGradeStalledError, not an invalid artifact', async () => {
      const err = await gradePython('def f(x):\n    while True:\n        pass\n', 'f', one, { wallMs: 500 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(PythonGradeStalledError);
      expect((err as Error).message).to.match(/within 0\.5 s of wall time \(its CPU budget is 3 s\)/);
    });
    it('the CPU budget is a whole number of seconds', async () => {
      const err = await gradePython(double, 'f', one, { cpuSeconds: 0.5 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(RangeError);
      expect((err as Error).message).to.match(/^cpuSeconds: /);
    });
    it('a syntax error is invalid', async () => {
      expectRefused(await grade('def f(x):\n    return (x\n'), /^SyntaxError: /);
    });
    it('a missing function is invalid', async () => {
      expectRefused(await grade('def g(x):\n    return x\n'), /^NameError: the artifact defines no 'f'/);
    });
    it('an error at module level is invalid', async () => {
      expectRefused(await grade('n = 1 // 0\ndef f(x):\n    return x\n'), /^ZeroDivisionError: /);
    });
  });

  // Issue 37: with 3 s of wall time, grades that waited for a core came back invalid (TimeoutError)
  // on a loaded machine. Many at once load it here: each waits, none uses its CPU budget up.
  it('12 grades at once on a busy machine: every one valid, none a timeout (the budget is CPU time)', async function () {
    this.timeout(120_000);
    const grades = await Promise.all(Array.from({ length: 12 }, () => grade(double)));
    for (const g of grades) expectPasses(g, [true]);
  });

  it('each run gets its own temporary folder, removed afterwards', async () => {
    // A temporary root of this test's own: other test files grade in parallel in the shared one,
    // whose folders would come and go while this one looks (os.tmpdir() reads TMPDIR at each call).
    const root = mkdtempSync(join(tmpdir(), 'evalog-pygrade-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = root;
    try {
      const g = await grade('def f():\n    return 1\n', [{ args: [], want: 1 }]);
      expectPasses(g, [true]);
      expect(readdirSync(root).filter((n) => n.startsWith('evalog-pygrade-'))).to.deep.equal([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(root, { recursive: true, force: true });
    }
  });
});

const pyCase = (checks: ProtocolCase['checks']): ProtocolCase => ({
  name: 'doubled',
  category: 'test',
  kind: 'python',
  brief: 'b',
  history: [],
  expected: null,
  summary: '',
  references: {},
  function: 'f',
  checks,
});

describe('gradeProtocolCase: the published grader, by kind and mode', function () {
  this.timeout(30_000);

  it(HAS_PYTHON ? 'public mode of a Python case runs only the first check' : NO_PYTHON, async function () {
    if (!HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so no Python artifact can be graded
    const c = pyCase([
      { args: [1], want: 2 },
      { args: [2], want: 5 },
    ]);
    const pub = await gradeProtocolCase(c, double, 'public');
    expect(pub.checks.map((r) => [r.check, r.passed])).to.deep.equal([[0, true]]);
    expect(protocolPassed(pub)).to.equal(true);
    const hidden = await gradeProtocolCase(c, double, 'hidden');
    expect(hidden.checks.map((r) => r.passed)).to.deep.equal([true, false]);
    expect(protocolPassed(hidden)).to.equal(false);
  });

  it('no artifact (null or empty) is invalid without running anything', async () => {
    for (const content of [null, '']) {
      const g = await gradeProtocolCase(pyCase([{ args: [1], want: 2 }]), content, 'hidden');
      expect(g).to.deep.equal({ valid: false, error: 'no artifact was written', checks: [] });
    }
  });
});

describe('gradeProtocolJson: the published JSON rules', () => {
  const expected = { limit: 10, burst: true, tiers: ['a', 'b'], note: null };

  it('hidden: one check per expected key, value equal and bool-ness equal', () => {
    const g = gradeProtocolJson(expected, JSON.stringify({ limit: 10, burst: true, tiers: ['a', 'b'], note: null }), false);
    expect(g).to.deep.equal({
      valid: true,
      error: null,
      checks: [
        { check: 'limit', passed: true },
        { check: 'burst', passed: true },
        { check: 'tiers', passed: true },
        { check: 'note', passed: true },
      ],
    });
    expect(protocolPassed(g)).to.equal(true);
  });

  it('a bool where a number is wanted fails, and a number where a bool is wanted fails (True == 1 in Python, but the kinds differ)', () => {
    const g = gradeProtocolJson(expected, JSON.stringify({ limit: true, burst: 1, tiers: ['a', 'b'], note: null }), false);
    expect(g.valid).to.equal(true);
    expect(g.checks.map((c) => c.passed)).to.deep.equal([false, false, true, true]);
  });

  it('nested values compare with Python ==: 1 equals 1.0 and true inside a list', () => {
    expect(pythonEqual([1, { a: 2 }], [true, { a: 2.0 }])).to.equal(true);
    expect(pythonEqual({ a: 1 }, { a: 1, b: 2 })).to.equal(false);
    expect(pythonEqual('1', 1)).to.equal(false);
    expect(pythonEqual(null, false)).to.equal(false);
    expect(pythonEqual([1, 2], [2, 1])).to.equal(false);
    const g = gradeProtocolJson({ xs: [1, 2] }, JSON.stringify({ xs: [true, 2] }), false);
    expect(g.checks).to.deep.equal([{ check: 'xs', passed: true }]);
  });

  it('a different key set is invalid; the checks still run, a missing key reading as null', () => {
    const g = gradeProtocolJson(expected, JSON.stringify({ limit: 10, burst: true, tiers: ['a', 'b'], extra: 1 }), false);
    expect(g.valid).to.equal(false);
    expect(g.error).to.match(/missing: note; unexpected: extra/);
    // note's target is null: the missing key reads as null and that check passes, as in the published grader.
    expect(g.checks.map((c) => c.passed)).to.deep.equal([true, true, true, true]);
    expect(protocolPassed(g)).to.equal(false);
  });

  it('public mode: one check, the JSON shape (the key set), whatever the values', () => {
    expect(gradeProtocolJson(expected, JSON.stringify({ limit: 0, burst: 0, tiers: 0, note: 0 }), true)).to.deep.equal({
      valid: true,
      error: null,
      checks: [{ check: JSON_SHAPE_CHECK, passed: true }],
    });
    const bad = gradeProtocolJson(expected, JSON.stringify({ limit: 10 }), true);
    expect(bad.checks).to.deep.equal([{ check: JSON_SHAPE_CHECK, passed: false }]);
    expect(bad.valid).to.equal(false);
  });

  it('not JSON, or not an object, is invalid with no checks', () => {
    for (const content of ['{"limit": ', '[1, 2]', '3', 'null']) {
      const g = gradeProtocolJson(expected, content, false);
      expect(g.valid, content).to.equal(false);
      expect(g.checks, content).to.deep.equal([]);
      expect(g.error, content).to.match(/not valid JSON|not a JSON object/);
    }
  });
});
