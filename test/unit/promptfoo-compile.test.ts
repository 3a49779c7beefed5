// How a promptfoo config becomes evalog's short form: the one-cell assert syntax of CSV files,
// provider ids as model names, prompts as arms, tests as cases whose `expected` holds the compiled
// asserts, one hash over the config and the files it references, and the scorer's verdicts
// (weights, thresholds, not-, javascript), worked out by hand.
import { expect } from 'chai';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scorer } from '../../src/graders/index.js';
import { assertOfCell, caseScorer, compilePromptfoo, jsonIn, modelOf, type PromptfooExpected } from '../../src/suites/promptfoo/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/promptfoo/', import.meta.url));
const W = { file: 'f.csv', path: 'line 2' };

function assertOf(a: Partial<PromptfooExpected['asserts'][number]> & { type: PromptfooExpected['asserts'][number]['type'] }) {
  return { not: false, value: null, threshold: null, weight: 1, model: null, ...a };
}

describe('promptfoo: the one-cell assert syntax of __expected', () => {
  it('reads prefixes, thresholds, not- and the legacy forms; a bare value is equals', () => {
    expect(assertOfCell(W, 'Paris')).to.deep.equal({ type: 'equals', value: 'Paris' });
    expect(assertOfCell(W, 'equals: 30')).to.deep.equal({ type: 'equals', value: '30' });
    expect(assertOfCell(W, 'not-icontains:error')).to.deep.equal({ type: 'not-icontains', value: 'error' });
    expect(assertOfCell(W, 'similar(0.9):Hello there')).to.deep.equal({ type: 'similar', value: 'Hello there', threshold: 0.9 });
    expect(assertOfCell(W, 'similar:Hello')).to.deep.equal({ type: 'similar', value: 'Hello', threshold: 0.8 });
    expect(assertOfCell(W, 'contains-json')).to.deep.equal({ type: 'contains-json' });
    expect(assertOfCell(W, 'fn:output.length < 9')).to.deep.equal({ type: 'javascript', value: 'output.length < 9' });
    expect(assertOfCell(W, 'grade: is polite')).to.deep.equal({ type: 'llm-rubric', value: 'is polite' });
    // A prefix that names no assert type is text to compare with, as promptfoo reads it.
    expect(assertOfCell(W, 'Note: hi')).to.deep.equal({ type: 'equals', value: 'Note: hi' });
  });
});

describe('promptfoo: provider ids', () => {
  it('are read for their model on the run endpoint', () => {
    expect(modelOf(W, 'openai:chat:gpt-4.1-mini')).to.equal('gpt-4.1-mini');
    expect(modelOf(W, 'openai:gpt-4o')).to.equal('gpt-4o');
    expect(modelOf(W, 'openrouter:meta-llama/llama-3-8b:free')).to.equal('meta-llama/llama-3-8b:free');
    expect(modelOf(W, 'ollama:chat:llama3')).to.equal('llama3');
    expect(() => modelOf(W, 'openai:completion:gpt-3.5-turbo-instruct')).to.throw('the completion API is not supported');
    expect(() => modelOf(W, 'echo')).to.throw('cannot be mapped');
  });
});

describe('promptfoo: a config compiled into the short form', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-pf-'));
    cpSync(FIXTURES, dir, { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prompts are template arms, providers model arms, tests cases with their asserts as expected', () => {
    const { spec, files } = compilePromptfoo(join(dir, 'arms/promptfooconfig.yaml'), dir);
    expect(spec.name).to.equal('promptfoo-arms');
    expect(spec.description).to.equal('One word back, asked three ways');
    expect(spec.task).to.deep.equal({
      exact: 'Reply with exactly: {{word}}',
      'prompts-1': 'Write {{word}} backwards.',
      'prompts-2': 'Spell {{ word }} letter by letter.',
    });
    expect(spec.models).to.deep.equal(['model-a', 'vendor/model-b']);
    expect(spec.defaults).to.deep.equal({ model: { temperature: 0, maxTokens: 64 } });
    expect(files).to.deep.equal(['arms/promptfooconfig.yaml', 'arms/prompts.txt', 'arms/tests.csv']);
    const cases = spec.data as { id: string; input: unknown; expected: PromptfooExpected }[];
    expect(cases.map((c) => c.id)).to.deep.equal(['bare-value', 'typed-equals', 'similar-with-a-threshold', 'one-edit-away', 'code-and-case']);
    expect(cases[0]).to.deep.equal({
      id: 'bare-value',
      input: { word: 'alpha' },
      expected: {
        asserts: [assertOf({ type: 'equals', value: 'alpha' }), assertOf({ type: 'contains', not: true, value: 'zzz' })],
        threshold: null,
        vars: null,
      },
    });
    // A javascript check reads the vars, so they travel with its asserts.
    expect(cases[4]!.expected.vars).to.deep.equal({ word: 'epsilon' });
  });

  it('hashes the config with every file it references', () => {
    const config = join(dir, 'arms/promptfooconfig.yaml');
    const before = compilePromptfoo(config, dir).sha256;
    expect(compilePromptfoo(config, dir).sha256).to.equal(before);
    writeFileSync(join(dir, 'arms/prompts.txt'), 'Write {{word}} backwards!\n');
    expect(compilePromptfoo(config, dir).sha256).not.to.equal(before);
  });

  it('renders assert values with the merged vars; no prompts means the prompt var', () => {
    writeFileSync(
      join(dir, 'p.yaml'),
      "defaultTest:\n  vars: {city: Paris}\n  assert: [{type: contains, value: '{{city}}'}]\ntests:\n  - vars: {prompt: 'Capital of France?'}\n  - vars: {prompt: 'Capital of Italy?', city: Rome}\n",
    );
    const { spec } = compilePromptfoo(join(dir, 'p.yaml'), dir);
    expect(spec.name).to.equal('promptfoo-p');
    expect(spec.task).to.equal('{{prompt}}');
    expect(spec.models).to.equal(undefined);
    const values = (spec.data as unknown as { expected: PromptfooExpected }[]).map((c) => c.expected.asserts[0]!.value);
    expect(values).to.deep.equal(['Paris', 'Rome']);
  });
});

describe("promptfoo: the scorer's verdicts", () => {
  const score = (expected: PromptfooExpected, output: string) => (caseScorer(expected) as Scorer).score(output, expected, { input: {} });

  it('without a threshold every assert must pass; not- turns a verdict over; weight 0 never fails', () => {
    const e: PromptfooExpected = {
      asserts: [assertOf({ type: 'contains', value: 'Paris' }), assertOf({ type: 'icontains', not: true, value: 'lyon' })],
      threshold: null,
      vars: null,
    };
    expect(score(e, 'Paris').passed).to.equal(true);
    expect(score(e, 'Paris or Lyon')).to.deep.include({ passed: false });
    const light: PromptfooExpected = {
      asserts: [assertOf({ type: 'equals', value: 'x' }), assertOf({ type: 'equals', value: 'y', weight: 0 })],
      threshold: null,
      vars: null,
    };
    expect(score(light, 'x').passed).to.equal(true);
  });

  it('with a threshold the weighted mean decides: 3 of 4 weight passes 0.75, not 0.8', () => {
    const at = (threshold: number): PromptfooExpected => ({
      asserts: [assertOf({ type: 'contains', value: 'miles', weight: 3 }), assertOf({ type: 'contains', value: 'km' })],
      threshold,
      vars: null,
    });
    expect(score(at(0.75), '186,000 miles').passed).to.equal(true);
    expect(score(at(0.8), '186,000 miles')).to.deep.include({ passed: false, score: 0.75 });
  });

  it('javascript: booleans, numbers against the threshold, vars; a nondeterministic check is a grading error, never a pass', () => {
    const js = (value: string, threshold: number | null = null, not = false): PromptfooExpected => ({
      asserts: [assertOf({ type: 'javascript', value, threshold, not })],
      threshold: null,
      vars: { want: 'ok' },
    });
    expect(score(js('output === context.vars.want'), 'ok').passed).to.equal(true);
    expect(score(js('output.length / 10', 0.5), 'four').passed).to.equal(false);
    expect(score(js('output.length / 10', 0.3), 'four').passed).to.equal(true);
    const random = score(js('Math.random() > 2', null, true), 'x');
    expect(random).to.deep.include({ passed: false, error: true });
    expect(random.detail).to.include('Math.random is not allowed in a check');
    const loop = score(js('(function () { for (;;) {} })()'), 'x');
    expect(loop).to.deep.include({ passed: false, error: true });
  });

  it('contains-json finds JSON inside prose', () => {
    expect(jsonIn('Here: {"a": [1, {"b": "}"}]} and [2, 3] but not {oops}')).to.deep.equal([{ a: [1, { b: '}' }] }, [2, 3]]);
  });
});
