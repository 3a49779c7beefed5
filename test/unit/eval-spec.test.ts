// defineEval's parts without a run: the spec's checks (one line naming the field), the data file
// formats and their pin, the arm names, and how scorers become checks (each, or one thresholded score).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contains, equals, similar } from '../../src/graders/index.js';
import type { GradeInput } from '../../src/harness/suite/types.js';
import {
  checkedSpec,
  dataFileSha256,
  defineEval,
  EvalDataChangedError,
  evalArms,
  evalDefinition,
  EvalSpecError,
  EvalTaskFunctionError,
  readPinnedData,
  type EvalConfig,
} from '../../src/suites/eval/index.js';
import { UserError } from '../../src/core/errors.js';

const work = (answer: string): GradeInput => ({ final: answer, first: answer, answer });
/** The message a promise is rejected with (an EvalSpecError), or a failure when it resolves. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(EvalSpecError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}
const noJudge = { call: () => Promise.reject(new Error('no judge in these tests')) };

describe('defineEval spec checks', () => {
  it('refuses a bad field with one line naming it, as a user error', () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 'a b', data: [{ input: 'x' }], task: 't' }, /field name must be/],
      [{ name: 'e', data: [], task: 't' }, /defineEval e: field data: the array has no cases/],
      [{ name: 'e', data: 'cases.txt', task: 't' }, /field data: cases\.txt is not a data file/],
      [{ name: 'e', data: [{ input: 'x' }], task: {} }, /field task: name at least one template/],
      [{ name: 'e', data: [{ input: 'x' }], task: { 'a b': 'x' } }, /field task\.a b: arm names/],
      [{ name: 'e', data: [{ input: 'x' }], task: 't', scorers: [{}] }, /field scorers\[0\]: is not a scorer/],
      [{ name: 'e', data: [{ input: 'x' }], task: 't', scorers: [equals(), equals()] }, /scorers\[1\]: a second scorer is named equals/],
      [{ name: 'e', data: [{ input: 'x' }], task: 't', threshold: 2 }, /field threshold: must be a number from 0 to 1/],
      [{ name: 'e', data: [{ input: 'x' }], task: 't', defaults: { retries: 3 } }, /field defaults\.retries: is not a setting/],
    ];
    for (const [spec, message] of cases) {
      expect(() => checkedSpec(spec as never), String(message)).to.throw(EvalSpecError, message);
      try {
        checkedSpec(spec as never);
      } catch (err) {
        expect(err).to.be.instanceOf(UserError);
        expect((err as Error).message).not.to.include('\n');
      }
    }
  });

  it('refuses a function task by name (not recorded yet), and fills evalog defaults otherwise', () => {
    expect(() => defineEval({ name: 'f', data: [{ input: 'x' }], task: async () => 'y' })).to.throw(EvalTaskFunctionError, /field task: a function task/);
    const s = checkedSpec({ name: 'd', data: [{ input: 'x' }], task: '{{input}}', defaults: { repetitions: 3, provider: { maxAttempts: 5 } } });
    expect(s.base.repetitions).to.equal(3);
    expect(s.base.provider).to.include({ maxAttempts: 5, timeoutMs: 60_000 });
    expect(s.scorers.map((x) => x.name)).to.deep.equal(['equals']);
  });

  it('names arms as the dataset suite does: template, model, or model__template', () => {
    const arms = (prompts: Record<string, string>, models: string[]) => [...evalArms({ prompts, models }).keys()];
    expect(arms({ default: 't' }, [])).to.deep.equal(['default']);
    expect(arms({ a: 't', b: 'u' }, [])).to.deep.equal(['a', 'b']);
    expect(arms({ default: 't' }, ['gpt-4.1', 'm2'])).to.deep.equal(['gpt-4-1', 'm2']);
    expect(arms({ b: 'u', a: 't' }, ['x', 'y'])).to.deep.equal(['x__a', 'x__b', 'y__a', 'y__b']);
  });
});

describe('defineEval data files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-eval-data-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const read = (name: string, text: string) => {
    const path = write(name, text);
    return readPinnedData(path, name, dataFileSha256(path, name)).map(({ id, input, expected }) => ({ id, input, expected }));
  };

  it('reads JSONL, JSON, CSV and YAML to the same cases; fields other than id and expected are template variables', () => {
    const want = [
      { id: 'a', input: 'hi', expected: 'HI' },
      { id: 'c2', input: { q: 'x', tone: 'dry' }, expected: undefined },
    ];
    expect(read('c.jsonl', '{"id":"a","input":"hi","expected":"HI"}\n\n{"q":"x","tone":"dry"}\n')).to.deep.equal(want);
    expect(read('c.json', '[{"id":"a","input":"hi","expected":"HI"},\n {"q":"x","tone":"dry"}]')).to.deep.equal(want);
    expect(read('c.yaml', '- id: a\n  input: hi\n  expected: HI\n- q: x\n  tone: dry\n')).to.deep.equal(want);
    expect(read('c.csv', 'id,input,expected\na,hi,HI\n')).to.deep.equal([want[0]]);
  });

  it('names the file and line of a bad case', () => {
    expect(() => read('c.jsonl', '{"input":"a"}\n{"id":"x y","input":"b"}\n')).to.throw(/c\.jsonl line 2: field id: must be/);
    expect(() => read('c.yaml', '- input: a\n- id: a\n  expected: 1\n')).to.throw(/c\.yaml line 2: has no input/);
    expect(() => read('c.jsonl', '{"id":"a","input":"x"}\n{"id":"a","input":"y"}\n')).to.throw(
      /c\.jsonl line 2: id "a" is used again \(first at c\.jsonl line 1\)/,
    );
    expect(() => read('c.jsonl', '{"input":"x","q":1}\n')).to.throw(/give "input" or template variables, not both/);
  });

  it('refuses a file whose bytes differ from the pin', () => {
    const path = write('c.jsonl', '{"input":"a"}\n');
    const pin = dataFileSha256(path, 'c.jsonl');
    write('c.jsonl', '{"input":"b"}\n');
    expect(() => readPinnedData(path, 'c.jsonl', pin)).to.throw(EvalDataChangedError, /data file c\.jsonl changed since the run recorded it/);
    rmSync(path);
    expect(() => readPinnedData(path, 'c.jsonl', pin)).to.throw(EvalDataChangedError, /is missing or unreadable/);
  });

  it('pins a data file relative to the folder the suite is given, in its defaults', () => {
    write('cases.jsonl', '{"input":"a","expected":"a"}\n');
    const suite = defineEval({ name: 'pinned', data: 'cases.jsonl', task: '{{input}}' }).inFolder(dir);
    const config = suite.defaults() as EvalConfig;
    expect(config.data).to.deep.equal({ path: 'cases.jsonl', sha256: dataFileSha256(join(dir, 'cases.jsonl'), 'x') });
  });
});

describe('defineEval grading', () => {
  const grade = async (threshold: number | undefined, answer: string) => {
    const spec = checkedSpec({
      name: 'g',
      data: [{ input: 'q', expected: 'Paris' }],
      task: '{{input}}',
      scorers: [contains(), similar({ threshold: 0.9 })],
      ...(threshold === undefined ? {} : { threshold }),
    });
    const def = evalDefinition(spec, process.cwd());
    const { cases } = await def.prepare(def.defaults);
    return def.grade!(cases[0]!, work(answer), noJudge);
  };

  it('without a threshold: one check per scorer, in order', async () => {
    const out = await grade(undefined, 'Paris, France');
    expect(out.checks.map((c) => [c.checkId, c.passed])).to.deep.equal([
      ['contains', true],
      ['similar', false],
    ]);
  });

  it('with a threshold: one "score" check, the scorers’ mean against it', async () => {
    // contains 1, similar ratio 5/13 ≈ 0.385: mean ≈ 0.69.
    expect((await grade(0.6, 'Paris, France')).checks.map((c) => [c.checkId, c.passed])).to.deep.equal([['score', true]]);
    expect((await grade(0.75, 'Paris, France')).checks.map((c) => [c.checkId, c.passed])).to.deep.equal([['score', false]]);
  });

  it('refuses a case a scorer cannot grade, or that lacks a template variable, naming the case', async () => {
    const def = (data: never, task = '{{input}}') => evalDefinition(checkedSpec({ name: 'p', data, task, scorers: [equals()] }), process.cwd());
    const noExpected = def([{ input: 'q' }] as never);
    expect(await refusal(noExpected.prepare(noExpected.defaults))).to.match(/field data\[0\]: case c1: scorer equals:/);
    const missing = def([{ input: { a: 1 }, expected: 1 }] as never, '{{b}}');
    expect(await refusal(missing.prepare(missing.defaults))).to.match(/case c1: prompt default uses \{\{b\}\}/);
  });
});
