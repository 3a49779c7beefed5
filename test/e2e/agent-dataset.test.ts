// An external agent answers a dataset suite's cases: the case's request is its task (no tools),
// its answer is graded as the built-in call's would be. On the scripted model the agent sends the
// same messages the built-in answerer sends, so it must earn the same verdict on every case.
import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonl, runEvalog, tempDir } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OFFLINE = { EVALOG_BASE_URL: undefined, EVALOG_MODEL: undefined, EVALOG_API_KEY: undefined };
// Four cases, two the scripted model answers right and two it gets wrong.
const CASES = ['capital-france', 'capital-australia', 'json-mars', 'json-primes'].flatMap((c) => ['--case', c]);
const ARGS = ['--config', join(ROOT, 'examples/dataset.config.json'), '--repetitions', '1', ...CASES];

describe('an external agent on the dataset suite (child processes)', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(async () => {
    await tmp.cleanup();
  });

  it('answers every case through the proxy and is graded as the built-in answerer is; replay passes', async () => {
    // From the repository's root, as the example config's case file is named relative to it.
    const out = (name: string) => join(tmp.dir, 'runs', name);
    const builtIn = await runEvalog(['run', 'dataset', ...ARGS, '--out', out('builtin')], { cwd: ROOT, env: OFFLINE });
    expect(builtIn.code, builtIn.stderr).to.equal(0);
    const agent = await runEvalog(['run', 'dataset', ...ARGS, '--out', out('agent'), '--agent', 'node examples/agents/node-agent.mjs'], {
      cwd: ROOT,
      env: OFFLINE,
    });
    expect(agent.code, agent.stderr).to.equal(0);
    const verdicts = (rows: Record<string, unknown>[]) => rows.map((r) => ({ job: r.job_id, passed: r.passed, status: r.status, checks: r.checks }));
    const ref = await readJsonl(join(tmp.dir, 'runs/builtin/rows.jsonl'));
    const got = await readJsonl(join(tmp.dir, 'runs/agent/rows.jsonl'));
    expect(got.length).to.equal(ref.length).and.to.be.greaterThan(0);
    expect(verdicts(got)).to.deep.equal(verdicts(ref));
    // Not vacuous: the verdicts differ across cases, and every row is the agent's.
    expect(new Set(got.map((r) => r.passed)).size).to.equal(2);
    expect(got.every((r) => r.agent === 'agent' && r.stop_reason === 'answered')).to.equal(true);
    const replay = await runEvalog(['replay', out('agent')], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
  });
});
