// gradeArtifact and publicCheckReport on small hand-made tasks (not the suite's task files).
import { expect } from 'chai';
import { Task, type JsonTask, type JsTask } from '../../src/manifest.js';
import { gradeArtifact, publicCheckReport } from '../../src/grading.js';

const common = {
  category: 'test',
  brief: 'brief',
  history: [{ role: 'user' as const, content: 'hello' }],
  summary: null,
  references: {},
  wrongSolutions: [{ content: '{}', fails: ['x'] }],
};

const jsonTask: JsonTask = Task.parse({
  ...common,
  id: 'limits',
  kind: 'json',
  referenceSolution: '{}',
  expected: { rpm: 60, burst: true, tiers: ['free', 'pro'], owner: { team: 'api', oncall: null } },
}) as JsonTask;

const jsTask: JsTask = Task.parse({
  ...common,
  id: 'paging',
  kind: 'javascript',
  referenceSolution: 'x',
  functionName: 'page',
  checks: [
    { id: 'first_page', args: [[1, 2, 3, 4], 1, 2], expect: [1, 2] },
    { id: 'last_page', args: [[1, 2, 3, 4], 2, 2], expect: [3, 4] },
    { id: 'size_capped', args: [[1, 2, 3, 4, 5], 1, 9], expect: [1, 2, 3] },
    { id: 'zero_page', args: [[1], 0, 1], throws: 'RangeError' },
  ],
}) as JsTask;

const GOOD_JS = `function page(items, n, size) {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('pages are 1-based');
  const s = Math.min(size, 3);
  return items.slice((n - 1) * s, n * s);
}`;

describe('context-snapshot grading: JSON tasks', () => {
  const good = { rpm: 60, burst: true, tiers: ['free', 'pro'], owner: { oncall: null, team: 'api' } };

  it('passes an artifact equal to the target (key order free), one check per expected key', async () => {
    const result = await gradeArtifact(jsonTask, JSON.stringify(good), 'hidden');
    expect(result).to.deep.equal({
      valid: true,
      invalidReason: null,
      passed: true,
      checks: ['rpm', 'burst', 'tiers', 'owner'].map((id) => ({ id, passed: true, detail: 'ok' })),
    });
  });

  it('tells true from 1 and "60" from 60, at any depth', async () => {
    const result = await gradeArtifact(jsonTask, JSON.stringify({ ...good, rpm: '60', burst: 1, tiers: ['free', 'pro', 'x'] }), 'hidden');
    expect(result.valid).to.equal(true);
    expect(result.checks.filter((c) => !c.passed).map((c) => c.id)).to.deep.equal(['rpm', 'burst', 'tiers']);
    expect(result.checks[1]!.detail).to.equal('expected true, got 1');
    expect(result.passed).to.equal(false);
    const nested = await gradeArtifact(jsonTask, JSON.stringify({ ...good, owner: { team: 'api', oncall: false } }), 'hidden');
    expect(nested.checks.find((c) => c.id === 'owner')!.passed).to.equal(false);
  });

  it('is invalid when the key set differs, and still grades the keys it has', async () => {
    const { burst: _burst, ...missing } = good;
    const result = await gradeArtifact(jsonTask, JSON.stringify({ ...missing, extra: 1 }), 'hidden');
    expect(result.valid).to.equal(false);
    expect(result.invalidReason).to.equal('the key set differs from the expected one (missing: ["burst"]; unexpected: ["extra"])');
    expect(result.checks.map((c) => [c.id, c.passed])).to.deep.equal([
      ['rpm', true],
      ['burst', false],
      ['tiers', true],
      ['owner', true],
    ]);
    expect(result.passed).to.equal(false);
  });

  it('is invalid for text that is not a JSON object, and lists every check as not run', async () => {
    for (const [content, reason] of [
      ['{"rpm": 60', /^not valid JSON/],
      ['[1, 2]', /^not a JSON object \(got an array\)$/],
      ['null', /got null/],
      ['"x"', /got string/],
    ] as const) {
      const result = await gradeArtifact(jsonTask, content, 'hidden');
      expect(result.valid).to.equal(false);
      expect(result.invalidReason).to.match(reason);
      expect(result.checks.map((c) => c.id)).to.deep.equal(['rpm', 'burst', 'tiers', 'owner']);
      expect(result.checks.every((c) => !c.passed && c.detail.startsWith('not run: '))).to.equal(true);
      expect(result.passed).to.equal(false);
    }
  });

  it('public mode has the single check `keys`: right keys pass whatever the values', async () => {
    const wrongValues = await gradeArtifact(jsonTask, JSON.stringify({ ...good, rpm: 1 }), 'public');
    expect(wrongValues).to.deep.equal({
      valid: true,
      invalidReason: null,
      passed: true,
      checks: [{ id: 'keys', passed: true, detail: 'ok: the key set is the expected one' }],
    });
    const wrongKeys = await gradeArtifact(jsonTask, JSON.stringify({ rpm: 60 }), 'public');
    expect(wrongKeys.passed).to.equal(false);
    expect(wrongKeys.checks).to.have.length(1);
    expect(wrongKeys.checks[0]!.id).to.equal('keys');
  });

  it('null content (no artifact) is invalid and fails', async () => {
    for (const mode of ['hidden', 'public'] as const) {
      const result = await gradeArtifact(jsonTask, null, mode);
      expect(result).to.include({ valid: false, invalidReason: 'no artifact was saved', passed: false });
    }
  });
});

describe('context-snapshot grading: JavaScript tasks', () => {
  it('passes a correct function on every hidden check', async () => {
    const result = await gradeArtifact(jsTask, GOOD_JS, 'hidden');
    expect(result.invalidReason).to.equal(null);
    expect(result.checks.map((c) => [c.id, c.passed])).to.deep.equal([
      ['first_page', true],
      ['last_page', true],
      ['size_capped', true],
      ['zero_page', true],
    ]);
    expect(result.passed).to.equal(true);
  });

  it('fails exactly the checks a wrong function gets wrong', async () => {
    const result = await gradeArtifact(jsTask, GOOD_JS.replace('Math.min(size, 3)', 'size'), 'hidden');
    expect(result.valid).to.equal(true);
    expect(result.checks.filter((c) => !c.passed).map((c) => c.id)).to.deep.equal(['size_capped']);
    expect(result.passed).to.equal(false);
  });

  it('public mode runs only the first hidden check', async () => {
    const onlyFirstRight = 'function page(items, n, size) { return n === 1 && size === 2 ? [1, 2] : []; }';
    const publicResult = await gradeArtifact(jsTask, onlyFirstRight, 'public');
    expect(publicResult.checks.map((c) => c.id)).to.deep.equal(['first_page']);
    expect(publicResult.passed).to.equal(true);
    expect((await gradeArtifact(jsTask, onlyFirstRight, 'hidden')).passed).to.equal(false);
  });

  it('is invalid with a banned construct (named with its line) or without the function, and runs nothing', async () => {
    const banned = await gradeArtifact(jsTask, `${GOOD_JS}\nconst fs = require('fs');`, 'hidden');
    expect(banned.valid).to.equal(false);
    expect(banned.invalidReason).to.equal('banned construct: identifier `require` (module loading) at line 6');
    expect(banned.checks.every((c) => !c.passed && c.detail.startsWith('not run: '))).to.equal(true);
    const missing = await gradeArtifact(jsTask, GOOD_JS.replace('function page', 'function paginate'), 'public');
    expect(missing).to.include({ valid: false, passed: false, invalidReason: 'no top-level function `page` is defined' });
    expect((await gradeArtifact(jsTask, null, 'hidden')).valid).to.equal(false);
  });

  it('fails a function that mutates its input', async () => {
    const result = await gradeArtifact(
      jsTask,
      GOOD_JS.replace('return items.slice', 'items.reverse(); items.reverse(); items.push(0); return items.slice'),
      'hidden',
    );
    expect(result.valid).to.equal(true);
    expect(result.checks.slice(0, 3).map((c) => c.detail)).to.deep.equal(Array(3).fill('argument 0 was mutated (the function must not change its inputs)'));
  });
});

describe('context-snapshot grading: the public check report', () => {
  it('is the JSON the run_public_checks tool returns', async () => {
    const passed = await gradeArtifact(jsTask, GOOD_JS, 'public');
    expect(JSON.parse(publicCheckReport(passed, 2))).to.deep.equal({ public_checks_passed: true, revision: 2, details: ['first_page: passed'] });
    const wrong = await gradeArtifact(jsTask, 'function page() { return [9]; }', 'public');
    expect(JSON.parse(publicCheckReport(wrong, 1))).to.deep.equal({
      public_checks_passed: false,
      revision: 1,
      details: ['first_page: failed (expected [1,2], got [9])'],
    });
  });

  it('says why an artifact is invalid once, then lists the checks it stopped', async () => {
    const invalid = await gradeArtifact(jsonTask, '{"rpm": 60}', 'public');
    const report = JSON.parse(publicCheckReport(invalid, 3)) as { public_checks_passed: boolean; details: string[] };
    expect(report.public_checks_passed).to.equal(false);
    expect(report.details).to.deep.equal([`invalid artifact: ${invalid.invalidReason}`, 'keys: failed']);
    expect(Object.keys(JSON.parse(publicCheckReport(invalid, 3)) as object)).to.deep.equal(['public_checks_passed', 'revision', 'details']);
  });
});
