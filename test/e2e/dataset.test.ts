import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import { appendFile, copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { deadPid, listFiles, readJsonl, runEvalogHere, runKilledAfterJobs, tempDir, withoutWallClock } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { withoutCutOff } from '../support/outputs.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

// What the graders give for the scripted player's answers to examples/qa.jsonl (see the player's table).
const PASSING = [
  'author-hamlet',
  'boiling-point',
  'capital-france',
  'chat-arithmetic',
  'echo',
  'json-mars',
  'json-tokyo',
  'largest-planet',
  'moon-landing',
  'multiply',
  'photosynthesis',
  'sqrt-144',
  'translate',
  'water-formula',
];
const FAILING = ['capital-australia', 'divide', 'json-primes', 'moon-cat', 'sky-color', 'speed-of-light', 'tallest-mountain'];
const CHECKS: Record<string, string> = {
  'author-hamlet': 'deterministic-overlap-v1',
  'boiling-point': 'regex',
  'json-mars': 'json-field',
  'json-primes': 'json-field',
  'json-tokyo': 'json-field',
  'largest-planet': 'contains',
  'moon-cat': 'deterministic-overlap-v1',
  'moon-landing': 'contains',
  photosynthesis: 'deterministic-overlap-v1',
  'sky-color': 'contains',
  'speed-of-light': 'regex',
  'tallest-mountain': 'contains',
  translate: 'regex',
};

const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
const stripLatency = (usage: { calls: Record<string, unknown>[] }) => ({ ...usage, calls: usage.calls.map((c) => ({ ...c, latency_ms: null })) });
const withoutSeconds = (summary: { run_id: string; arms: Record<string, Record<string, unknown>> }) => ({
  ...summary,
  run_id: null,
  arms: Object.fromEntries(Object.entries(summary.arms).map(([k, a]) => [k, { ...a, mean_seconds: null, median_seconds: null }])),
});

describe('evalog run dataset (CLI in process; killed runs in child processes)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    tmp = await tempDir();
    await mkdir(join(tmp.dir, 'examples'));
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'examples/qa.jsonl'));
  });
  after(() => tmp.cleanup());

  it('runs examples/qa.jsonl against the scripted model: rows and summary are what the graders give, and replay matches', async () => {
    const r = await runEvalogHere(['run', 'dataset', '--data', 'examples/qa.jsonl', '--out', 'runs/qa'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/scripted model plays/);
    const rows = await readJsonl<{ case_id: string; arm: string; status: string; passed: boolean; checks: Record<string, boolean> }>(
      join(tmp.dir, 'runs/qa/rows.jsonl'),
    );
    expect(rows.map((x) => x.case_id)).to.deep.equal([...PASSING, ...FAILING].sort());
    expect(rows.every((x) => x.status === 'succeeded' && x.arm === 'default')).to.equal(true);
    expect(rows.filter((x) => x.passed).map((x) => x.case_id)).to.deep.equal(PASSING);
    for (const x of rows) expect(x.checks, x.case_id).to.deep.equal({ [CHECKS[x.case_id] ?? 'exact']: x.passed });

    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/summary.json'), 'utf8'));
    expect(summary).to.deep.include({ suite: 'dataset', scripted: true, jobs: 21 });
    expect(summary.arms.default).to.deep.include({ n: 21, passed: 14, succeeded: 21, failed: 0, calls: 21 });
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/run.json'), 'utf8'));
    expect(run.config.data).to.deep.equal({ path: join(tmp.dir, 'examples/qa.jsonl'), sha256: await sha(join(tmp.dir, 'examples/qa.jsonl')) });
    const usage = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/usage.json'), 'utf8'));
    expect(usage.calls).to.have.length(21);

    const replay = await runEvalogHere(['replay', 'runs/qa'], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(21 jobs\)/);
  });

  it('a resume removes the temp files a writer killed while writing the outputs left, and writes the same outputs', async () => {
    const r = await runEvalogHere(['run', 'dataset', '--data', 'examples/qa.jsonl', '--out', 'runs/temps'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const dir = join(tmp.dir, 'runs/temps');
    const before = await readFile(join(dir, 'rows.jsonl'), 'utf8');
    // What a kill in the middle of the outputs' write leaves: a temp file of a process that is gone.
    const stale = `.rows.jsonl.${deadPid()}.${randomUUID()}.tmp`;
    await writeFile(join(dir, stale), before.slice(0, 100));
    await writeFile(join(dir, '.notes.tmp'), 'not a temp file of evalog');
    const resumed = await runEvalogHere(['resume', 'runs/temps'], { cwd: tmp.dir });
    expect(resumed.code, resumed.stderr).to.equal(0);
    const names = await readdir(dir);
    expect(names, 'the stale temp file').not.to.include(stale);
    expect(names, 'a file that only looks alike').to.include('.notes.tmp');
    expect(
      names.filter((n) => n.endsWith('.tmp') && n !== '.notes.tmp'),
      'no temp file of its own either',
    ).to.deep.equal([]);
    expect(await readFile(join(dir, 'rows.jsonl'), 'utf8')).to.equal(before);
  });

  it('replay refuses a case file changed since the run, naming it (exit 2)', async () => {
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'mine.jsonl'));
    const r = await runEvalogHere(['run', 'dataset', '--data', 'mine.jsonl', '--out', 'runs/mine', '--case', 'echo'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    await appendFile(join(tmp.dir, 'mine.jsonl'), '{"id": "new", "input": "x", "expected": "y"}\n');
    const replay = await runEvalogHere(['replay', 'runs/mine'], { cwd: tmp.dir });
    expect(replay.code, replay.stderr).to.equal(2);
    expect(replay.stderr).to.include(`case file ${join(tmp.dir, 'mine.jsonl')} changed since the run recorded it`);
  });

  const refusals: [string, string, string[], RegExp][] = [
    ['a bad line', '{"id": "a", "input": "x", "expected": "y"}\n{"id": "b", "input": "x" "expected": "y"}\n', [], /bad\.jsonl line 2: not valid JSON/],
    [
      'a missing template variable',
      '{"id": "a", "input": "x", "expected": "y", "lang": "fr"}\n\n{"id": "b", "input": "x", "expected": "y"}\n',
      ['--prompt', '{{input}} in {{lang}}'],
      /bad\.jsonl line 3: case b: prompt default uses \{\{lang\}\}, which this case does not have/,
    ],
    [
      'an expected value its grader cannot use',
      '{"id": "a", "input": "x", "expected": "(", "grader": "regex"}\n',
      [],
      /bad\.jsonl line 1: case a: "expected" is not a valid regular expression/,
    ],
  ];
  for (const [what, text, args, message] of refusals) {
    it(`${what}: exit 2, the file and line named, nothing written`, async () => {
      const dir = await tempDir();
      try {
        await writeFile(join(dir.dir, 'bad.jsonl'), text);
        const r = await runEvalogHere(['run', 'dataset', '--data', 'bad.jsonl', '--out', 'runs/bad', ...args], { cwd: dir.dir });
        expect(r.code, r.stderr).to.equal(2);
        expect(r.stderr).to.match(message);
        expect(r.stderr).to.not.match(/\n\s+at /); // a message, not a stack
        expect(await listFiles(dir.dir)).to.deep.equal(['bad.jsonl']);
      } finally {
        await dir.cleanup();
      }
    });
  }

  describe('killed mid-run (SIGKILL)', () => {
    let server: MockServerProcess;
    let env: Record<string, string>;
    const ARGS = ['--data', 'examples/qa.jsonl', '--repetitions', '3', '--concurrency', '4', '--model', 'evalog-scripted'];
    before(async () => {
      server = await startMockServer(['--latency-ms', '10-60'], tmp.dir);
      env = { EVALOG_BASE_URL: server.url };
    });
    after(() => server?.stop());

    it('resume finishes without repeating a logged call, with the outputs of an uninterrupted run', async () => {
      const ref = await runEvalogHere(['run', 'dataset', '--out', 'runs/reference', ...ARGS], { cwd: tmp.dir, env });
      expect(ref.code, ref.stderr).to.equal(0);
      const killed = await runKilledAfterJobs(['run', 'dataset', '--out', 'runs/killed', ...ARGS], { cwd: tmp.dir, env }, 25);
      expect(killed.signal, 'the run was killed').to.equal('SIGKILL');

      const successes = async () => {
        const log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
        let n = 0;
        for await (const e of log.read('killed')) if (e.type === 'ProviderCallSucceeded') n += 1;
        await log.close();
        return n;
      };
      const before = (await server.stats()).completed;
      const logged = await successes();
      expect(logged).to.be.below(63);
      const resumed = await runEvalogHere(['resume', 'runs/killed', '--model', 'evalog-scripted'], { cwd: tmp.dir, env });
      expect(resumed.code, resumed.stderr).to.equal(0);
      expect((await server.stats()).completed - before).to.equal((await successes()) - logged);

      const read = async (run: string) => ({
        rows: (await readJsonl(join(tmp.dir, `runs/${run}/rows.jsonl`))).map(withoutWallClock),
        summary: withoutSeconds(JSON.parse(await readFile(join(tmp.dir, `runs/${run}/summary.json`), 'utf8'))),
        usage: stripLatency(JSON.parse(await readFile(join(tmp.dir, `runs/${run}/usage.json`), 'utf8'))),
      });
      const [a, b] = [await read('killed'), await read('reference')];
      expect(a.rows).to.have.length(63);
      // Attempts in flight at the kill stay in usage.json as `unknown` (they may have reached the
      // model), each retried as a new attempt; apart from them and the counts they change, all equal.
      const cut = withoutCutOff(a.rows, a.summary, a.usage);
      const touched = withoutCutOff(b.rows, b.summary, { calls: a.usage.calls });
      expect(cut.rows).to.deep.equal(touched.rows);
      expect(cut.summary).to.deep.equal(touched.summary);
      expect(cut.usage).to.deep.equal(withoutCutOff(b.rows, b.summary, b.usage).usage);
      const reports = [a.usage, b.usage] as unknown as { report: { calls: number; usage: { fields: { totalTokens: { sum: number | null } } } } }[];
      expect(reports[0]!.report.calls).to.equal(reports[1]!.report.calls + cut.cut);
      expect(reports[0]!.report.usage.fields.totalTokens.sum).to.equal(reports[1]!.report.usage.fields.totalTokens.sum);
      const replay = await runEvalogHere(['replay', 'runs/killed'], { cwd: tmp.dir });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    });
  });
});
