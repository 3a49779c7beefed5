import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import { rebuildOutputs } from '../../src/projections/outputs.js';
import type { Row } from '../../src/projections/rows.js';
import { steppingClock } from '../../src/core/clock.js';
import { executeRun, planRun } from '../../src/harness/orchestration/launch.js';
import { armTable, datasetCases, datasetConfig, datasetPlayer, datasetRequest, datasetSuite } from '../../src/suites/dataset/index.js';
import { scriptedPlayers, suiteCli, suiteNamed } from '../../src/app/index.js';
import type { ChatRequest } from '../../src/providers/scripted/index.js';
import { tempDir } from '../support/cli.js';

const ask = (text: string) => datasetPlayer({ model: 'm', messages: [{ role: 'user', content: text }] } as ChatRequest, { rng: () => 0, seed: 0 });

describe('dataset suite', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let data: string;
  before(async () => {
    tmp = await tempDir();
    data = join(tmp.dir, 'cases.jsonl');
    writeFileSync(
      data,
      [
        '{"id":"echo","input":"Reply with exactly: 42","expected":"42"}',
        '{"id":"paris","input":"What is the capital of France?","expected":"paris","grader":"regex:i"}',
        '{"id":"sydney","input":"What is the capital of Australia?","expected":"Canberra"}',
        '{"id":"chat","messages":[{"role":"user","content":"Translate \\"{{w}}\\" into Spanish."}],"w":"hello","expected":"hola","grader":"exact"}',
      ].join('\n'),
    );
  });
  after(() => tmp.cleanup());

  /** Runs the dataset of `data` on the scripted model into `log`, `concurrency` jobs at a time, to completion. */
  async function runDataset(log: FileEventLog, runId: string, concurrency: number): Promise<void> {
    const suite = await datasetSuite({ baseDir: tmp.dir }).configure(datasetConfig({ data, concurrency })).prepare();
    const started = planRun(suite, { scripted: true });
    const out = await executeRun({
      players: scriptedPlayers(),
      suite,
      log,
      runId,
      started,
      endpoint: { scripted: true },
      clock: steppingClock(0, 5),
      sleep: async () => {},
    });
    expect(out.status).to.equal('completed');
  }

  it('is registered, plays single-call jobs and grades them itself; its flags are in its CLI adjunct', async () => {
    const s = suiteNamed('dataset')!;
    expect(s.shape).to.equal('single-call');
    const prepared = await s.configure(datasetConfig({ data })).prepare();
    const hooks = prepared.hooks({ jobId: 'echo:default:1', caseId: 'echo', arm: 'default', repetition: 1, seed: 1 });
    expect(hooks.shape === 'single-call' && typeof hooks.grade).to.equal('function');
    expect(suiteCli('dataset').runFlags?.options.data).to.deep.equal({ type: 'string' });
  });

  it('names arms by what varies: variants, models (id-safe), or both', () => {
    const names = (o: Parameters<typeof datasetConfig>[0]) => [...armTable(datasetConfig(o)).keys()];
    expect(names({ data })).to.deep.equal(['default']);
    expect(names({ data, prompts: ['A {{input}}', 'B {{input}}'] })).to.deep.equal(['p1', 'p2']);
    expect(names({ data, models: ['gpt-4.1'] })).to.deep.equal(['gpt-4-1']);
    expect(names({ data, models: ['a', 'b/c'], prompts: { x: '{{input}}' } })).to.deep.equal(['a', 'b-c']);
    expect(names({ data, models: ['a'], prompts: { x: '{{input}}', y: '{{input}}' } })).to.deep.equal(['x', 'y']);
    expect(names({ data, models: ['a', 'b'], prompts: { x: '{{input}}', y: '{{input}}' } })).to.deep.equal(['a__x', 'a__y', 'b__x', 'b__y']);
    expect(() => datasetConfig({ data, models: ['a.b', 'a-b'] })).to.throw(/field models: two models share the arm name a-b/);
  });

  it("builds one request per case: system, then the rendered template or the case's messages, and the arm's model", () => {
    const config = datasetConfig({ data, system: 'Be brief.', models: ['m1', 'm2'], prompts: 'Q: {{input}}' });
    const cases = datasetCases(config, tmp.dir);
    const byId = new Map(cases.map((c) => [c.id, c.data]));
    expect(datasetRequest(byId.get('echo')!, armTable(config).get('m2')!, config)).to.deep.equal({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Q: Reply with exactly: 42' },
      ],
      model: 'm2',
    });
    expect(datasetRequest(byId.get('chat')!, armTable(config).get('m1')!, config).messages.at(-1)).to.deep.equal({
      role: 'user',
      content: 'Translate "hello" into Spanish.',
    });
  });

  it('the scripted player echoes "Reply with exactly: X", answers the example table, and leaves the rest to the fallback', () => {
    expect(ask('Q: Reply with exactly: blue-42 ')).to.deep.equal({ content: 'blue-42' });
    expect(ask('Q: What is the capital of France?')).to.deep.equal({ content: 'Paris' });
    expect(ask('What is the capital of Australia?')).to.deep.equal({ content: 'Sydney' });
    expect(ask('Something nobody asked')).to.equal(null);
  });

  it('a run grades each answer at once: CheckEvaluated and JobGraded precede JobSucceeded, and rows come from them', async () => {
    const log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
    try {
      await runDataset(log, 'ds', 2);
      const types: string[] = [];
      for await (const e of log.read('ds')) if (e.jobId === 'echo:default:1') types.push(e.type);
      expect(types).to.deep.equal(['JobStarted', 'ProviderCallRequested', 'ProviderCallSucceeded', 'CheckEvaluated', 'JobGraded', 'JobSucceeded']);
      const rows = (await rebuildOutputs(log, 'ds', suiteNamed)).rows as unknown as Row[];
      expect(rows.map((r) => [r.case_id, r.passed, r.checks])).to.deep.equal([
        ['chat', false, { exact: false }],
        ['echo', true, { exact: true }],
        ['paris', true, { regex: true }],
        ['sydney', false, { exact: false }],
      ]);
    } finally {
      await log.close();
    }
  });

  it('a job waits for three durable commits, not six: its start goes with its request, its grade with its end; the answer alone', async () => {
    const commits: number[] = [];
    const log = await FileEventLog.open({ root: join(tmp.dir, 'runs-commits'), onCommit: (c) => commits.push(c.events) });
    try {
      await runDataset(log, 'dc', 1);
      // One job at a time, so each commit holds one job's events (or the run's own): group them by commit.
      const events: string[] = [];
      for await (const e of log.read('dc')) events.push(`${e.jobId ?? 'run'} ${e.type}`);
      const groups: string[][] = [];
      for (const n of commits) groups.push(events.splice(0, n));
      const ofJob = groups.filter((g) => g[0]!.startsWith('echo:default:1 ')).map((g) => g.map((line) => line.split(' ')[1]));
      expect(ofJob).to.deep.equal([['JobStarted', 'ProviderCallRequested'], ['ProviderCallSucceeded'], ['CheckEvaluated', 'JobGraded', 'JobSucceeded']]);
    } finally {
      await log.close();
    }
  });
});
