// A promptfoo config evalog cannot run as written is refused up front, by name and place: each
// unsupported key, assert type, provider, template construct and file form gives one line naming the
// file and the path inside it (a UserError, exit 2), before any run folder exists; never ignored.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../src/core/errors.js';
import { compilePromptfoo, PromptfooConfigError } from '../../src/suites/promptfoo/index.js';

/** Compiles `yaml` (with `files` beside it) and returns the refusal's message; fails when nothing is refused. */
function refusal(yaml: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalog-pf-'));
  try {
    writeFileSync(join(dir, 'promptfooconfig.yaml'), yaml);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    try {
      compilePromptfoo(join(dir, 'promptfooconfig.yaml'), dir);
    } catch (err) {
      expect(err).to.be.instanceOf(PromptfooConfigError);
      expect(err).to.be.instanceOf(UserError);
      const message = (err as Error).message;
      expect(message.split('\n'), 'one line').to.have.length(1);
      return message;
    }
    throw new Error('the config was not refused');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const HEAD = "prompts: ['Q: {{q}}']\nproviders: [openai:gpt-4o]\n";

describe('promptfoo configs: refused up front, naming the file and the path', () => {
  it('an unsupported assert type, with the supported ones listed', () => {
    const m = refusal(
      `${HEAD}tests:\n  - vars: {q: a}\n  - vars: {q: b}\n  - vars: {q: c}\n    assert:\n      - type: webhook\n        value: http://localhost:1\n`,
    );
    expect(m).to.match(/^promptfooconfig\.yaml: tests\[2\]\.assert\[0\]\.type: "webhook" is not supported \(supported: equals, contains, icontains, /);
    expect(m).to.include('llm-rubric, model-graded-closedqa, factuality');
    expect(m).to.include('each also as not-<type>');
    expect(refusal(`${HEAD}tests:\n  - vars: {q: a}\n    assert: [{type: not-python, value: 'True'}]\n`)).to.match(
      /^promptfooconfig\.yaml: tests\[0\]\.assert\[0\]\.type: "not-python" is not supported \(supported: /,
    );
    expect(refusal(`${HEAD}tests:\n  - vars: {q: a}\n    assert: [{type: shouts}]\n`)).to.include(
      '"shouts" is not supported (not an assert type evalog knows)',
    );
  });

  it('unknown keys at every level', () => {
    expect(refusal(`${HEAD}tests: []\nsharing: true\n`)).to.equal(
      'promptfooconfig.yaml: sharing: config key "sharing" is not supported (supported: description, prompts, providers, tests, defaultTest, evaluateOptions)',
    );
    expect(refusal(`${HEAD}tests:\n  - vars: {q: a}\n    metadata: {topic: x}\n`)).to.equal(
      'promptfooconfig.yaml: tests[0].metadata: test key "metadata" is not supported (supported: description, vars, assert, threshold, options)',
    );
    expect(refusal(`${HEAD}tests:\n  - vars: {q: a}\n    assert: [{type: contains, value: x, metric: accuracy}]\n`)).to.equal(
      'promptfooconfig.yaml: tests[0].assert[0].metric: assert key "metric" is not supported (supported: type, value, threshold, weight, provider)',
    );
    expect(refusal(`${HEAD}tests:\n  - vars: {q: a}\n    options: {transform: output.trim()}\n`)).to.equal(
      'promptfooconfig.yaml: tests[0].options.transform: test option key "transform" is not supported (supported: provider)',
    );
    expect(refusal(`${HEAD}defaultTest:\n  assert:\n    - $ref: '#/assertionTemplates/x'\ntests: [{vars: {q: a}}]\n`)).to.equal(
      'promptfooconfig.yaml: defaultTest.assert[0].$ref: assert key "$ref" is not supported (supported: type, value, threshold, weight, provider)',
    );
    expect(refusal(`${HEAD}evaluateOptions: {delay: 10}\ntests: [{vars: {q: a}}]\n`)).to.match(
      /^promptfooconfig\.yaml: evaluateOptions\.delay: evaluateOptions key "delay"/,
    );
  });

  it('providers evalog cannot map onto its endpoint', () => {
    expect(refusal("prompts: ['{{q}}']\nproviders: [openai:gpt-4o, anthropic:messages:claude-sonnet-4]\ntests: [{vars: {q: a}}]\n")).to.match(
      /^promptfooconfig\.yaml: providers\[1\]: provider "anthropic:messages:claude-sonnet-4" cannot be mapped onto the run's OpenAI-compatible endpoint \(supported: openai:<model>/,
    );
    expect(refusal("prompts: ['{{q}}']\nproviders: [openai:embedding:text-embedding-3-small]\ntests: [{vars: {q: a}}]\n")).to.include(
      'providers[0]: provider "openai:embedding:text-embedding-3-small": the embedding API is not supported; evalog sends chat completions',
    );
    expect(refusal("prompts: ['{{q}}']\nproviders: [{id: openai:gpt-4o, label: fast}]\ntests: [{vars: {q: a}}]\n")).to.include(
      'providers[0].label: provider key "label" is not supported (supported: id, config)',
    );
    expect(
      refusal(
        "prompts: ['{{q}}']\nproviders:\n  - {id: openai:a, config: {temperature: 0}}\n  - {id: openai:b, config: {temperature: 1}}\ntests: [{vars: {q: a}}]\n",
      ),
    ).to.include("providers[1]: its config differs from providers[0]'s");
    expect(refusal("prompts: ['{{q}}']\nproviders: [{id: openai:a, config: {top_p: 1}}]\ntests: [{vars: {q: a}}]\n")).to.include(
      'providers[0].config.top_p: provider config key "top_p" is not supported (supported: temperature, max_tokens)',
    );
    expect(refusal("prompts: ['{{q}}']\nproviders: [openai:gpt-4o, openai:chat:gpt-4o]\ntests: [{vars: {q: a}}]\n")).to.include(
      'providers[1]: model "gpt-4o" is listed twice',
    );
  });

  it('Nunjucks beyond {{ variable }}, by name', () => {
    expect(refusal("prompts: ['{% if q %}{{q}}{% endif %}']\ntests: [{vars: {q: a}}]\n")).to.equal(
      'promptfooconfig.yaml: prompts[0]: the Nunjucks tag {% if %} is not supported (only {{ variable }} placeholders are)',
    );
    expect(refusal("prompts: ['{{ q | upper }}']\ntests: [{vars: {q: a}}]\n")).to.equal(
      'promptfooconfig.yaml: prompts[0]: the Nunjucks filter "upper" in {{ q | upper }} is not supported (only {{ variable }} placeholders are)',
    );
    expect(refusal("prompts: ['{{ q.text }}']\ntests: [{vars: {q: a}}]\n")).to.include('the Nunjucks attribute access {{ q.text }} is not supported');
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: contains, value: '{{ q | lower }}'}]}]\n`)).to.include(
      'tests[0].assert[0].value: the Nunjucks filter "lower"',
    );
  });

  it('a placeholder a test does not give, in a prompt or an assert value', () => {
    expect(refusal(`${HEAD}tests:\n  - vars: {q: a}\n  - vars: {question: b}\n`)).to.equal(
      'promptfooconfig.yaml: prompts[0]: uses {{q}}, which tests[1] does not give (its vars: question)',
    );
    expect(
      refusal(`${HEAD}defaultTest:\n  assert: [{type: factuality, value: '{{reference}}'}]\ntests:\n  - vars: {q: a, reference: x}\n  - vars: {q: b}\n`),
    ).to.equal('promptfooconfig.yaml: defaultTest.assert[0].value: uses {{reference}}, which the vars of tests[1] do not give');
  });

  it('values their grader could not read, when the config loads', () => {
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: regex, value: '(unclosed'}]}]\n`)).to.match(
      /^promptfooconfig\.yaml: tests\[0\]\.assert\[0\]\.value: "\(unclosed" is not a valid regular expression: /,
    );
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: is-json, value: {type: object, patternProperties: {}}}]}]\n`)).to.include(
      'tests[0].assert[0].value: the JSON schema: ',
    );
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: contains, threshold: 0.5, value: x}]}]\n`)).to.equal(
      'promptfooconfig.yaml: tests[0].assert[0].threshold: is not read by contains (a threshold is read by similar, levenshtein and javascript)',
    );
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: contains, weight: -1, value: x}]}]\n`)).to.include(
      'tests[0].assert[0].weight: must be a number of at least 0, got -1',
    );
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: contains, provider: openai:gpt-4o, value: x}]}]\n`)).to.include(
      'tests[0].assert[0].provider: is read only by model-graded asserts, not by contains',
    );
    expect(refusal(`${HEAD}tests: [{vars: {q: a}, threshold: 0.5, assert: [{type: contains, weight: 0, value: x}]}]\n`)).to.include(
      'tests[0]: has a threshold but every assert has weight 0',
    );
    expect(refusal(`${HEAD}tests: [{vars: {q: [a, b]}}]\n`)).to.include(
      'tests[0].vars.q: a list of values (promptfoo runs every combination) is not supported',
    );
  });

  it('javascript asserts: one expression or a body with return, deterministic, never a file', () => {
    const js = (value: string) => refusal(`${HEAD}tests: [{vars: {q: a}, assert: [{type: javascript, value: ${JSON.stringify(value)}}]}]\n`);
    expect(js('file://check.js')).to.include('tests[0].assert[0].value: "file://check.js": code files');
    expect(js('const n = output.length; n > 3')).to.include('a one-line javascript check must be one expression');
    expect(js('output.length > Date.now()')).to.match(/javascript check: banned construct: identifier `Date` \(non-deterministic \(clock\)\)/);
    expect(js("require('fs').existsSync(output)")).to.include('identifier `require` (module loading)');
    expect(js('output.length >')).to.include('javascript check: not valid strict-mode JavaScript');
    expect(js('const n = 1;\nn > 0')).to.include('a multi-line javascript check is a function body and must return its result');
  });

  it('files: missing, globs, code, chat prompts, and CSV columns evalog does not read', () => {
    expect(refusal('prompts: [file://missing.txt]\ntests: [{vars: {q: a}}]\n')).to.equal('promptfooconfig.yaml: prompts[0]: missing.txt does not exist');
    expect(refusal('prompts: [file://prompts/*.txt]\ntests: [{vars: {q: a}}]\n')).to.include(
      'prompts[0]: "file://prompts/*.txt": glob patterns are not supported',
    );
    expect(refusal('prompts: [file://prompt.py]\ntests: [{vars: {q: a}}]\n')).to.include('prompts[0]: "file://prompt.py": code files');
    expect(refusal('prompts: [file://chat.json]\ntests: [{vars: {q: a}}]\n', { 'chat.json': '[]' })).to.include(
      'prompts[0]: "file://chat.json": .json prompt files are not supported',
    );
    expect(refusal(`prompts: ['[{"role": "user", "content": "{{q}}"}]']\ntests: [{vars: {q: a}}]\n`)).to.include(
      'chat-format prompts (a JSON list of messages) are not supported',
    );
    expect(refusal(`${HEAD}tests: file://tests.csv\n`, { 'tests.csv': 'q,__metric\na,accuracy\n' })).to.equal(
      'tests.csv: line 1: column "__metric" is not supported (supported: __expected, __expected1…, __description, __threshold, and var columns)',
    );
    expect(refusal(`${HEAD}tests: file://tests.csv\n`, { 'tests.csv': 'q,__expected\na,webhook:http://x\n' })).to.match(
      /^tests\.csv: line 2\.__expected\.type: "webhook" is not supported/,
    );
    expect(refusal(`${HEAD}tests: file://tests.csv\n`, { 'tests.csv': 'q,__expected\na,python:len(output) > 1\n' })).to.match(
      /^tests\.csv: line 2\.__expected: "python" is not supported/,
    );
    expect(refusal(`${HEAD}tests: file://tests.yaml\n`, { 'tests.yaml': '- vars: {q: a}\n  assert: [{type: rouge-n, value: x}]\n' })).to.match(
      /^tests\.yaml: \[0\]\.assert\[0\]\.type: "rouge-n" is not supported/,
    );
    expect(refusal(`${HEAD}tests: file://tests.xlsx\n`, { 'tests.xlsx': '' })).to.include('.xlsx files are not supported for tests');
  });

  it('a YAML file that is not a promptfoo config', () => {
    expect(refusal('name: my-suite\nsteps: [a]\n')).to.equal(
      'promptfooconfig.yaml: is not a promptfoo config (a YAML mapping with prompts, providers and tests); evalog runs a .yaml file as one',
    );
    expect(refusal('prompts: [a\n')).to.match(/^promptfooconfig\.yaml: not valid YAML: /);
  });
});
