// `evalog run promptfooconfig.yaml`: five promptfoo configs of different shapes (inline tests; three
// prompts × two providers from CSV; defaultTest merged with weights, thresholds and javascript;
// model-graded asserts; JSON asserts from JSON Lines) run on the scripted model, each verdict
// asserted. The run replays; an edited referenced file is refused like an edited suite file; a
// config with an unsupported assert is one line naming it, exit 2, and no run folder is written.
import { expect } from 'chai';
import { cp, readFile, writeFile, appendFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/promptfoo/', import.meta.url));

type Row = { case_id: string; arm: string; repetition: number; passed: boolean; reason: string | null };

/** Runs one fixture folder's config in a fresh temp folder; its rows as `case/arm/repetition` → passed. */
async function runFixture(
  name: string,
): Promise<{ dir: string; verdicts: Record<string, boolean>; rows: Row[]; stdout: string; cleanup: () => Promise<void> }> {
  const tmp = await tempDir('evalog-promptfoo-');
  await cp(FIXTURES, tmp.dir, { recursive: true });
  const r = await runEvalogHere(['run', `${name}/promptfooconfig.yaml`, '--out', `runs/${name}`], { cwd: tmp.dir });
  expect(r.code, r.stderr).to.equal(0);
  const rows = (await readJsonl(join(tmp.dir, 'runs', name, 'rows.jsonl'))) as Row[];
  const verdicts = Object.fromEntries(rows.map((row) => [`${row.case_id}/${row.arm}/${row.repetition}`, row.passed]));
  return { dir: tmp.dir, verdicts, rows, stdout: r.stdout, cleanup: tmp.cleanup };
}

describe('evalog run promptfooconfig.yaml', function () {
  this.timeout(180_000);

  it('inline tests with the text asserts: one provider is one model arm', async () => {
    const run = await runFixture('basic');
    try {
      const arm = 'gpt-4-1-mini';
      expect(run.verdicts).to.deep.equal({
        [`france/${arm}/1`]: true, // "Paris": equals, starts-with
        [`australia/${arm}/1`]: false, // "Sydney" does not contain canberra
        [`hamlet/${arm}/1`]: true, // contains Shakespeare, not-contains Marlowe
        [`multiplication/${arm}/1`]: true, // "391": regex ^\d+$, contains-any [391, 392]
        [`sky/${arm}/1`]: false, // "Blue.": not-icontains blue fails
      });
      const australia = run.rows.find((r) => r.case_id === 'australia')!;
      expect(australia.reason).to.equal(
        'promptfoo-asserts: 1 of 1 parts failed (all must pass): [1] icontains fail: expected the output to contain "canberra" (case ignored), got "Sydney"',
      );
      const runJson = JSON.parse(await readFile(join(run.dir, 'runs/basic/run.json'), 'utf8'));
      expect(runJson.suite).to.equal('promptfoo-basic');
      expect(runJson.provenance.suite_file.path).to.equal('basic/promptfooconfig.yaml');
    } finally {
      await run.cleanup();
    }
  });

  it('prompts × providers are the arms; CSV __expected cells are the asserts; the run replays; an edited tests file is refused', async () => {
    const run = await runFixture('arms');
    try {
      const cases = ['bare-value', 'typed-equals', 'similar-with-a-threshold', 'one-edit-away', 'code-and-case'];
      const arms = [
        'model-a__exact',
        'model-a__prompts-1',
        'model-a__prompts-2',
        'vendor-model-b__exact',
        'vendor-model-b__prompts-1',
        'vendor-model-b__prompts-2',
      ];
      const want: Record<string, boolean> = {};
      // Only the "Reply with exactly" prompt gets the word back from the scripted model, on either model.
      for (const c of cases) for (const a of arms) want[`${c}/${a}/1`] = a.endsWith('__exact');
      expect(run.verdicts).to.deep.equal(want);
      expect(run.stdout).to.include('paired model-a__exact vs model-a__prompts-1: 5 pairs, model-a__exact only 5');
      const replay = await runEvalogHere(['replay', 'runs/arms'], { cwd: run.dir });
      expect(replay.code, replay.stderr).to.equal(0);
      expect(replay.stdout).to.include('every event matches (30 jobs)');
      // The tests file is part of the suite: changing it is changing the suite.
      await appendFile(join(run.dir, 'arms/tests.csv'), 'zeta,zeta,,added later\n');
      const refused = await runEvalogHere(['replay', 'runs/arms'], { cwd: run.dir });
      expect(refused.code, refused.stderr).to.equal(2);
      expect(refused.stderr.trim().split('\n')).to.have.length(1);
      expect(refused.stderr).to.match(/suite file arms\/promptfooconfig\.yaml: changed since the run started/);
    } finally {
      await run.cleanup();
    }
  });

  it('defaultTest vars and asserts merged in, weights, test thresholds, javascript checks, repeat', async () => {
    const run = await runFixture('defaults');
    try {
      const want: Record<string, boolean> = {};
      for (const rep of [1, 2]) {
        want[`boiling-point/gpt-4o-mini/${rep}`] = true; // contains-all passes; the failing icontains has weight 0
        want[`speed-of-light/gpt-4o-mini/${rep}`] = true; // (1 + 0 + 3) / 5 = 0.8 >= 0.5
        want[`capital-below-threshold/gpt-4o-mini/${rep}`] = false; // (1 + 0 + 1) / 4 = 0.5 < 0.6
        want[`checks-in-code/gpt-4o-mini/${rep}`] = true; // "4" === vars.answer; 4 / 10 >= 0.4
        want[`own-preface/gpt-4o-mini/${rep}`] = true; // the test's preface over the default's
      }
      expect(run.verdicts).to.deep.equal(want);
      const light = run.rows.find((r) => r.case_id === 'speed-of-light')!;
      expect(light.reason).to.match(/^promptfoo-asserts: weighted score 0\.8, at least 0\.5: \[1\] javascript ×1 pass/);
      const capital = run.rows.find((r) => r.case_id === 'capital-below-threshold')!;
      expect(capital.reason).to.match(/^promptfoo-asserts: weighted score 0\.5, below 0\.6: /);
      const boiling = run.rows.find((r) => r.case_id === 'boiling-point')!;
      expect(boiling.reason).to.include('[3] icontains pass: weight 0, counted as passed (failed)');
    } finally {
      await run.cleanup();
    }
  });

  it('model-graded asserts go to the judge (defaultTest.options.provider names its model)', async () => {
    const run = await runFixture('judged');
    try {
      expect(run.verdicts).to.deep.equal({
        'rubric/gpt-4-1/1': true,
        'wrong-fact/gpt-4-1/1': false, // "Sydney" against the reference "Canberra"
        'right-fact/gpt-4-1/1': true,
        'closed-qa/gpt-4-1/1': true,
        'negated-rubric/gpt-4-1/1': false,
      });
      const usage = await readFile(join(run.dir, 'runs/judged/usage.json'), 'utf8');
      expect(usage).to.include('judge-mini');
    } finally {
      await run.cleanup();
    }
  });

  it('JSON asserts: is-json with a schema, contains-json, equals a JSON value, their negations', async () => {
    const run = await runFixture('json');
    try {
      expect(run.verdicts).to.deep.equal({
        'japan/gpt-4o/1': true,
        'mars/gpt-4o/1': true, // JSON in a ``` fence: contains-json with a schema, is-json
        'primes/gpt-4o/1': false, // {"primes": [1, 2, 3]} is not {"primes": [2, 3, 5]}
        'water/gpt-4o/1': true, // "H2O": not-is-json, not-contains-json
      });
    } finally {
      await run.cleanup();
    }
  });

  it('a config with an unsupported assert: one line naming file and path, exit 2, nothing written', async () => {
    const tmp = await tempDir('evalog-promptfoo-');
    try {
      await writeFile(
        join(tmp.dir, 'promptfooconfig.yaml'),
        "prompts: ['{{q}}']\nproviders: [openai:gpt-4o]\ntests:\n  - vars: {q: a}\n  - vars: {q: b}\n    assert:\n      - type: latency\n        threshold: 100\n",
      );
      const r = await runEvalogHere(['run', 'promptfooconfig.yaml', '--out', 'runs/bad'], { cwd: tmp.dir });
      expect(r.code).to.equal(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).to.have.length(1);
      expect(lines[0]).to.match(/^evalog: promptfooconfig\.yaml: tests\[1\]\.assert\[0\]\.type: "latency" is not supported \(supported: equals, /);
      expect(r.stderr).not.to.match(/^\s+at /m);
      expect(existsSync(join(tmp.dir, 'runs'))).to.equal(false);
    } finally {
      await tmp.cleanup();
    }
  });
});
