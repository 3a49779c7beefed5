import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { cp, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvalogEvent, StoredEvent } from '../../src/events/index.js';
import { JUDGE_FORMAT, SCRIPTED_MALFORMED } from '../../src/graders/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { rebuildOutputs } from '../../src/projections/outputs.js';
import { startScriptedModel, type Player } from '../../src/providers/scripted/index.js';
import { steppingClock } from '../../src/core/clock.js';
import { resumeRun } from '../../src/harness/orchestration/replay-resume.js';
import type { ModelEndpoint } from '../../src/harness/endpoint/endpoint.js';
import { executeRun, planRun } from '../../src/harness/orchestration/launch.js';
import { DataChangedError, datasetConfig, datasetSuite } from '../../src/suites/dataset/index.js';
import { scriptedPlayers, suiteNamed } from '../../src/app/index.js';
import { sha256 } from '../../src/core/canonical.js';
import { readJsonl, runEvalog, runEvalogHere, runKilledAfterJobs, tempDir, withoutWallClock } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { noLatency, readJson } from '../support/outputs.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const RUBRIC = '# Rubric\n\nPass when the output gives the expected answer; wording may differ.\n';

// examples/qa.jsonl cases without a grader of their own: the judge grades these (the rest keep theirs).
const JUDGED = ['capital-australia', 'capital-france', 'chat-arithmetic', 'divide', 'echo', 'multiply', 'sqrt-144', 'water-formula'];
// The scripted judge passes an output that contains the expected value: the scripted answers of these.
const JUDGED_PASSING = ['capital-france', 'chat-arithmetic', 'echo', 'multiply', 'sqrt-144', 'water-formula'];

type Events = StoredEvent[];
/** One tally of usage.json (the whole report, one attribution, or the grading calls). */
type Tally = { calls: number; outcomes: Record<string, number>; usage: { fields: { totalTokens: { sum: number } } } };
/** What these tests read of usage.json. */
type UsageJson = {
  report: Tally & { byAttribution: Record<'main' | 'unknown', Tally> };
  grading: Tally;
  calls: { attribution: string; job_id: string; call_id: string; usage: { totalTokens?: number } | null }[];
};
/** What these tests read of summary.json and run.json. */
type SummaryJson = { arms: Record<string, unknown> };
type RunJson = { config: { grader: string; rubric: unknown } };
const readLog = async (root: string, runId: string): Promise<Events> => {
  const log = await FileEventLog.open({ root });
  const out: Events = [];
  try {
    for await (const e of log.read(runId)) out.push(e);
  } finally {
    await log.close();
  }
  return out;
};
const isJudge = (e: StoredEvent) => e.type === 'ProviderCallRequested' && e.data.attribution === 'grading';
const judgeSuccesses = (events: Events) => {
  const judgeCalls = new Set(events.filter(isJudge).map((e) => `${e.jobId}/${(e.data as { callId: string }).callId}`));
  return events.filter((e) => e.type === 'ProviderCallSucceeded' && judgeCalls.has(`${e.jobId}/${e.data.callId}`));
};

describe('evalog run dataset --grader model:RUBRIC.md (the scripted model judges)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    tmp = await tempDir();
    await mkdir(join(tmp.dir, 'examples'));
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'examples/qa.jsonl'));
    await writeFile(join(tmp.dir, 'rubric.md'), RUBRIC);
    await writeFile(join(tmp.dir, 'malformed.md'), `Grade strictly. ${SCRIPTED_MALFORMED}\n`);
  });
  after(() => tmp.cleanup());

  it("records the judge's calls as grading calls, apart from the agent's in usage.json and rows; the rubric is pinned; the run replays", async () => {
    const r = await runEvalogHere(['run', 'dataset', '--data', 'examples/qa.jsonl', '--grader', 'model:rubric.md', '--out', 'runs/judged'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const dir = join(tmp.dir, 'runs/judged');

    const usage = await readJson<UsageJson>(join(dir, 'usage.json'));
    // The agent's report holds its 21 answers only; the 8 judge calls are in `grading`, in the same shape as one attribution's.
    expect(usage.report.calls).to.equal(21);
    expect(usage.report.byAttribution.main.calls).to.equal(21);
    expect(usage.report.byAttribution.unknown.calls).to.equal(0);
    expect(Object.keys(usage.grading).sort()).to.deep.equal(Object.keys(usage.report.byAttribution.main).sort());
    expect(usage.grading.calls).to.equal(JUDGED.length);
    expect(usage.grading.outcomes.success).to.equal(JUDGED.length);
    expect(usage.grading.usage.fields.totalTokens.sum).to.be.above(0);
    const judgeRows = usage.calls.filter((c: { attribution: string }) => c.attribution === 'grading');
    expect(judgeRows.map((c: { job_id: string; call_id: string }) => [c.job_id, c.call_id])).to.deep.equal(
      JUDGED.map((id) => [`${id}:default:1`, 'judge-1/attempt-1']),
    );
    expect(usage.report.usage.fields.totalTokens.sum + usage.grading.usage.fields.totalTokens.sum).to.equal(
      usage.calls.reduce((s: number, c: { usage: { totalTokens?: number } | null }) => s + (c.usage?.totalTokens ?? 0), 0),
    );

    const rows = await readJsonl<{
      case_id: string;
      passed: boolean;
      checks: Record<string, boolean>;
      calls: number;
      usage: { total: { total_tokens: number } };
    }>(join(dir, 'rows.jsonl'));
    expect(
      rows.every((x) => x.calls === 1),
      'a row counts the answer call only',
    ).to.equal(true);
    expect(rows.filter((x) => 'model' in x.checks).map((x) => x.case_id)).to.deep.equal(JUDGED);
    expect(rows.filter((x) => x.checks.model === true).map((x) => x.case_id)).to.deep.equal(JUDGED_PASSING);
    expect(rows.reduce((s, x) => s + x.usage.total.total_tokens, 0)).to.equal(usage.report.usage.fields.totalTokens.sum);
    const summary = await readJson<SummaryJson>(join(dir, 'summary.json'));
    expect(summary.arms.default).to.deep.include({ n: 21, calls: 21 });

    const run = await readJson<RunJson>(join(dir, 'run.json'));
    expect(run.config.grader).to.equal('model');
    expect(run.config.rubric).to.deep.equal({ path: join(tmp.dir, 'rubric.md'), sha256: sha256(Buffer.from(RUBRIC)) });

    // The judge saw the case, never the arm: no message of a judge request names it.
    const events = await readLog(join(tmp.dir, 'runs'), 'judged');
    const judgeRequests = events.filter(isJudge);
    expect(judgeRequests.every((e) => e.actor.endsWith('/grader'))).to.equal(true);
    const stored = await FileEventLog.open({ root: join(tmp.dir, 'runs'), readOnly: true });
    for (const e of judgeRequests) {
      for (const ref of (e.data as { messages: string[] }).messages) {
        expect(Buffer.from(await stored.blobs('judged').get(ref)).toString('utf8')).to.not.include('default');
      }
    }
    await stored.close();

    const replay = await runEvalogHere(['replay', 'runs/judged'], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(21 jobs\)/);
  });

  it('replay refuses a rubric changed since the run, naming the file (exit 2)', async () => {
    await writeFile(join(tmp.dir, 'mine.md'), RUBRIC);
    const r = await runEvalogHere(['run', 'dataset', '--data', 'examples/qa.jsonl', '--grader', 'model:mine.md', '--case', 'echo', '--out', 'runs/mine'], {
      cwd: tmp.dir,
    });
    expect(r.code, r.stderr).to.equal(0);
    await writeFile(join(tmp.dir, 'mine.md'), `${RUBRIC}Be lenient.\n`);
    const out = await runEvalogHere(['replay', 'runs/mine'], { cwd: tmp.dir });
    expect(out.code, out.stderr).to.equal(2);
    expect(out.stderr).to.include(`rubric file ${join(tmp.dir, 'mine.md')} changed since the run recorded it`);
    expect(out.stderr).to.not.match(/\n\s+at /);
  });

  it('a config file names the rubric by "rubric" (a path, or pinned by sha256) or by "grader": "model:PATH"; it is pinned by absolute path', async () => {
    const pinned = sha256(Buffer.from(RUBRIC));
    const configs = {
      'by-path.json': { data: 'examples/qa.jsonl', grader: 'model', rubric: 'rubric.md', cases: ['echo'] },
      'by-grader.json': { data: 'examples/qa.jsonl', grader: 'model:rubric.md', cases: ['echo'] },
      'by-pin.json': { data: 'examples/qa.jsonl', grader: 'model', rubric: { path: 'rubric.md', sha256: pinned }, cases: ['echo'] },
    };
    for (const [name, config] of Object.entries(configs)) {
      await writeFile(join(tmp.dir, name), JSON.stringify(config));
      const r = await runEvalogHere(['run', 'dataset', '--config', name, '--out', `runs/${name.replace('.json', '')}`], { cwd: tmp.dir });
      expect(r.code, `${name}: ${r.stderr}`).to.equal(0);
      const run = await readJson<RunJson>(join(tmp.dir, `runs/${name.replace('.json', '')}/run.json`));
      expect([run.config.grader, run.config.rubric], name).to.deep.equal(['model', { path: join(tmp.dir, 'rubric.md'), sha256: pinned }]);
    }
    await writeFile(join(tmp.dir, 'bad-pin.json'), JSON.stringify({ ...configs['by-pin.json'], rubric: { path: 'rubric.md', sha256: '0'.repeat(64) } }));
    await writeFile(join(tmp.dir, 'no-rubric.json'), JSON.stringify({ data: 'examples/qa.jsonl', grader: 'model' }));
    for (const [name, message] of [
      ['bad-pin.json', /rubric file .*rubric\.md changed/],
      ['no-rubric.json', /no-rubric\.json: field rubric: grader model needs a rubric file/],
    ] as const) {
      const r = await runEvalogHere(['run', 'dataset', '--config', name, '--out', `runs/${name.replace('.json', '')}`], { cwd: tmp.dir });
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stderr).to.match(message);
      expect(existsSync(join(tmp.dir, 'runs', name.replace('.json', '')))).to.equal(false);
    }
  });

  it('a missing or empty rubric is refused before anything is written (exit 2, the file named)', async () => {
    await writeFile(join(tmp.dir, 'empty.md'), '\n');
    for (const [file, message] of [
      ['nope.md', /cannot read rubric file .*nope\.md: ENOENT/],
      ['empty.md', /rubric file .*empty\.md is empty/],
    ] as const) {
      const r = await runEvalogHere(['run', 'dataset', '--data', 'examples/qa.jsonl', '--grader', `model:${file}`, '--out', `runs/${file}`], { cwd: tmp.dir });
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stderr).to.match(message);
      expect(r.stderr).to.not.match(/\n\s+at /);
      expect(existsSync(join(tmp.dir, 'runs', file)), 'no run folder').to.equal(false);
    }
  });

  it('a malformed verdict is recorded as a grading error: a failed check whose detail says so, never a pass', async () => {
    const r = await runEvalog(
      [
        'run',
        'dataset',
        '--data',
        'examples/qa.jsonl',
        '--grader',
        'model:malformed.md',
        '--case',
        'echo',
        '--case',
        'capital-france',
        '--out',
        'runs/malformed',
      ],
      { cwd: tmp.dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    const events = await readLog(join(tmp.dir, 'runs'), 'malformed');
    const checks = events.filter((e) => e.type === 'CheckEvaluated').map((e) => e.data as { checkId: string; passed: boolean; detail: string });
    expect(checks).to.have.length(2);
    for (const c of checks) {
      expect(c).to.deep.include({ checkId: 'model', passed: false });
      expect(c.detail).to.match(/^grading error: malformed verdict \(not JSON\): /);
    }
    const rows = await readJsonl<{ passed: boolean; status: string }>(join(tmp.dir, 'runs/malformed/rows.jsonl'));
    expect(rows.map((x) => [x.status, x.passed])).to.deep.equal([
      ['succeeded', false],
      ['succeeded', false],
    ]);
    const replay = await runEvalogHere(['replay', 'runs/malformed'], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
  });

  describe('killed mid-run (SIGKILL), then resumed', () => {
    let server: MockServerProcess;
    let env: Record<string, string>;
    const ARGS = ['--data', 'examples/qa.jsonl', '--grader', 'model:rubric.md', '--repetitions', '3', '--concurrency', '4', '--model', 'evalog-scripted'];
    before(async () => {
      server = await startMockServer(['--latency-ms', '10-60'], tmp.dir);
      env = { EVALOG_BASE_URL: server.url };
    });
    after(() => server?.stop());

    it('sends no logged call again, judge calls included, and ends with the grades of an uninterrupted run', async () => {
      const ref = await runEvalogHere(['run', 'dataset', '--out', 'runs/reference', ...ARGS], { cwd: tmp.dir, env });
      expect(ref.code, ref.stderr).to.equal(0);
      const killed = await runKilledAfterJobs(['run', 'dataset', '--out', 'runs/killed', ...ARGS], { cwd: tmp.dir, env }, 20);
      expect(killed.signal, 'the run was killed').to.equal('SIGKILL');

      const root = join(tmp.dir, 'runs');
      const successes = async () => (await readLog(root, 'killed')).filter((e) => e.type === 'ProviderCallSucceeded').length;
      const loggedJudge = judgeSuccesses(await readLog(root, 'killed')).length;
      expect(loggedJudge, 'some judge calls were logged before the kill').to.be.above(0);
      const before = (await server.stats()).completed;
      const logged = await successes();
      const resumed = await runEvalogHere(['resume', 'runs/killed', '--model', 'evalog-scripted'], { cwd: tmp.dir, env });
      expect(resumed.code, resumed.stderr).to.equal(0);
      // Every call the resumed process completed is a new success in the log: none was a logged one sent again.
      expect((await server.stats()).completed - before).to.equal((await successes()) - logged);
      const final = await readLog(root, 'killed');
      expect(judgeSuccesses(final).length).to.equal(JUDGED.length * 3);

      // Grades equal an uninterrupted run's. (Calls and usage may not: an attempt cut off by the kill is
      // recorded as unknown on resume and sent again as a new attempt, so those are not compared.)
      const grades = async (run: string) =>
        (await readJsonl<{ job_id: string; status: string; passed: boolean; checks: Record<string, boolean> }>(join(tmp.dir, `runs/${run}/rows.jsonl`))).map(
          (x) => [x.job_id, x.status, x.passed, x.checks],
        );
      expect(await grades('killed')).to.deep.equal(await grades('reference'));
      const usage = await readJson<UsageJson>(join(tmp.dir, 'runs/killed/usage.json'));
      expect(usage.grading.outcomes.success).to.equal(JUDGED.length * 3);
      expect(usage.report.byAttribution.main.outcomes.success).to.equal(63);
      const replay = await runEvalogHere(['replay', 'runs/killed'], { cwd: tmp.dir });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    });
  });
});

describe('model-graded dataset run, in process through the real HTTP server', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(() => tmp.cleanup());

  it('resume from a log that ends right after a judge call succeeded serves that call from the log: it is not sent again', async () => {
    const data = join(tmp.dir, 'cases.jsonl');
    await writeFile(data, ['echo', 'blue', 'green'].map((w) => JSON.stringify({ id: w, input: `Reply with exactly: ${w}`, expected: w })).join('\n'));
    await writeFile(join(tmp.dir, 'rubric.md'), RUBRIC);
    // Counts the judge requests the server receives, by the output they judge; answers nothing itself.
    const judged: string[] = [];
    const counter: Player = (request) => {
      const [system, user] = request.messages;
      if (typeof system?.content === 'string' && system.content.includes(JUDGE_FORMAT) && typeof user?.content === 'string')
        judged.push(/<output>\n([\s\S]*)\n<\/output>/.exec(user.content)![1]!);
      return null;
    };
    const server = await startScriptedModel({ players: [counter, ...scriptedPlayers()], models: ['evalog-scripted'] });
    const endpoint: ModelEndpoint = {
      scripted: false,
      baseURL: server.url,
      apiKey: 'test-key',
      model: 'evalog-scripted',
      baseUrlEnv: 'EVALOG_BASE_URL',
      apiKeyEnv: null,
    };
    const config = datasetConfig({ data, grader: 'model', rubric: { path: join(tmp.dir, 'rubric.md'), sha256: sha256(Buffer.from(RUBRIC)) }, concurrency: 1 });
    const suite = await datasetSuite({ baseDir: tmp.dir }).configure(config).prepare();
    const opts = { clock: steppingClock(0, 5), sleep: async () => {} };
    try {
      const whole = await FileEventLog.open({ root: join(tmp.dir, 'whole') });
      const out = await executeRun({ players: scriptedPlayers(), ...opts, suite, log: whole, runId: 'j', started: planRun(suite, endpoint), endpoint });
      expect(out.status).to.equal('completed');
      await whole.close();
      expect([...judged].sort()).to.deep.equal(['blue', 'echo', 'green']);

      // What a kill right after the second judge call succeeded leaves: the log up to that event, and the blobs.
      const events = await readLog(join(tmp.dir, 'whole'), 'j');
      const cut = judgeSuccesses(events)[1]!;
      const prefix = events.slice(0, events.indexOf(cut) + 1);
      const cutJob = cut.jobId!;
      const cutOutput = { 'echo:default:1': 'echo', 'blue:default:1': 'blue', 'green:default:1': 'green' }[cutJob]!;
      expect(
        prefix.some((e) => e.jobId === cutJob && e.type === 'CheckEvaluated'),
        'the cut job was not graded yet',
      ).to.equal(false);
      await mkdir(join(tmp.dir, 'cut/j/log'), { recursive: true });
      await cp(join(tmp.dir, 'whole/j/log/blobs.pack'), join(tmp.dir, 'cut/j/log/blobs.pack'));
      const cutLog = await FileEventLog.open({ root: join(tmp.dir, 'cut') });
      await cutLog.append(prefix.map(({ seq: _s, ...e }) => e as EvalogEvent));

      // A changed rubric is refused before anything is sent or written, naming the file.
      await writeFile(join(tmp.dir, 'rubric.md'), `${RUBRIC}Be lenient.\n`);
      let refused: unknown;
      await resumeRun(cutLog, 'j', { suiteOf: suiteNamed, ...opts, endpoint }).catch((err: unknown) => (refused = err));
      expect(refused).to.be.instanceOf(DataChangedError);
      expect((refused as Error).message).to.include(`rubric file ${join(tmp.dir, 'rubric.md')} changed since the run recorded it`);
      expect(await readLog(join(tmp.dir, 'cut'), 'j')).to.have.length(prefix.length);
      await writeFile(join(tmp.dir, 'rubric.md'), RUBRIC);

      judged.length = 0;
      const resumed = await resumeRun(cutLog, 'j', { suiteOf: suiteNamed, ...opts, endpoint });
      expect(resumed.status).to.equal('completed');
      // Only the judge call that had not happened yet was sent; the logged one came from the log.
      expect(judged).to.have.length(1);
      expect(judged).to.not.include(cutOutput);
      const cutJobJudge = (await readLog(join(tmp.dir, 'cut'), 'j')).filter((e) => e.jobId === cutJob && isJudge(e));
      expect(cutJobJudge).to.have.length(1);

      const [a, b] = [
        await rebuildOutputs(cutLog, 'j', suiteNamed),
        await (async () => {
          const l = await FileEventLog.open({ root: join(tmp.dir, 'whole') });
          try {
            return await rebuildOutputs(l, 'j', suiteNamed);
          } finally {
            await l.close();
          }
        })(),
      ];
      await cutLog.close();
      expect(a.usage.grading).to.deep.include({ calls: 3 });
      expect(noLatency(a.usage as never)).to.deep.equal(noLatency(b.usage as never));
      expect(a.rows.map(withoutWallClock)).to.deep.equal(b.rows.map(withoutWallClock));
    } finally {
      await server.close();
    }
  });
});
