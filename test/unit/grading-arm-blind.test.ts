// Grading is blind to the arm: the same work graded under every arm label of a suite gives the same
// CheckEvaluated and JobGraded events, through the harness's own grading step (gradeAndRecord), so a
// grader that favours one arm (full_handoff, snapshot, candidate, a prompt or policy) fails here.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gradeAndRecord } from '../../src/harness/grader/grade.js';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { evolveEnvironment, initialEnvironment } from '../../packages/suite-context-engineering/src/environment.js';
import type { Scenario } from '../../packages/suite-context-engineering/src/scenarios.js';
import type { Task } from '../../packages/suite-context-snapshot/src/manifest.js';
import { expectedTotal, type SmokeCase } from '../../src/suites/smoke/cases.js';
import { loadAllPlugins, suiteNamed, type CaseSpec, type GradeInput, type PreparedSuite } from '../../src/app/index.js';
import { buildCases } from '../../packages/suite-memory-eviction/src/cases.js';
import { loadDataset } from '../../packages/suite-memory-eviction/src/dataset.js';
import { loadProtocol } from '../../packages/suite-memory-eviction/src/protocol.js';
import { gradeQaRows, type GradedRow } from '../../packages/suite-memory-eviction/src/qa-grade.js';
import type { QaAnswerRow } from '../../packages/suite-memory-eviction/src/qa-report.js';
import { goldenDatasetConfig, goldenDatasetSuite } from '../replay/golden.js';
import { makeTestSetup } from '../support/longmemeval.js';
import { RecordingJournal, testProvider } from '../support/machines.js';

// The studies' suites come from their plugins, loaded on demand.
await loadAllPlugins();

/** A registry suite configured with its defaults. */
const configuredDefaults = (name: string) => {
  const suite = suiteNamed(name)!;
  return suite.configure(suite.defaults());
};

const GOLDEN = fileURLToPath(new URL('../replay/golden/', import.meta.url));

/** The grade events of one job of `arm`, with the job's own name taken out of actor paths. */
async function gradeUnder(suite: PreparedSuite, c: CaseSpec<unknown>, arm: string, work: GradeInput): Promise<unknown[]> {
  const jobId = `${c.id}:${arm}:1`;
  const hooks = suite.hooks({ jobId, caseId: c.id, arm, repetition: 1, seed: 1 });
  if (!('grade' in hooks) || !hooks.grade) throw new Error(`${suite.name} grades nothing at once`);
  const journal = new RecordingJournal();
  await gradeAndRecord({ journal: journal.job(jobId), provider: testProvider(), grade: hooks.grade }, work);
  return journal.emitted().map((e) => ({ ...e, actor: e.actor.replace(jobId, '<job>') }));
}

/** Grades each work under every arm and expects one and the same list of events; returns them per work. */
async function expectBlind(suite: PreparedSuite, works: { c: CaseSpec<unknown>; work: GradeInput }[]): Promise<{ passed: boolean }[]> {
  const { arms } = suite;
  expect(arms.length, `${suite.name} arms`).to.be.greaterThan(1);
  const out: { passed: boolean }[] = [];
  for (const { c, work } of works) {
    const [first, ...rest] = await Promise.all(arms.map((arm) => gradeUnder(suite, c, arm, work)));
    for (const [i, events] of rest.entries()) expect(events, `${suite.name} ${c.id}: ${arms[0]} vs ${arms[i + 1]}`).to.deep.equal(first);
    expect(
      first!.some((e) => (e as { type: string }).type === 'CheckEvaluated'),
      `${suite.name} ${c.id} has checks`,
    ).to.equal(true);
    const graded = first!.find((e) => (e as { type: string }).type === 'JobGraded') as { data: { passed: boolean } };
    out.push({ passed: graded.data.passed });
  }
  return out;
}

/** Both outcomes occur, so blindness is shown on passing and failing work alike. */
const bothOutcomes = (r: { passed: boolean }[]) => expect(new Set(r.map((x) => x.passed))).to.deep.equal(new Set([true, false]));

describe('grading is blind to the arm', function () {
  this.timeout(120_000);

  it('smoke (full_handoff, brief_handoff): right, wrong and missing answers', async () => {
    const suite = await configuredDefaults('smoke').prepare();
    const cases = suite.cases;
    const works = cases.flatMap((c) => [
      { c, work: { final: expectedTotal(c.data as SmokeCase), first: null, answer: null } },
      { c, work: { final: '0.01', first: '0.01', answer: null } },
      { c, work: { final: null, first: null, answer: null } },
    ]);
    bothOutcomes(await expectBlind(suite, works));
  });

  it("context-snapshot (isolated_handoff, snapshot): each task's reference and wrong artifacts", async () => {
    const suite = await configuredDefaults('context-snapshot').prepare();
    const works = suite.cases.flatMap((c) => {
      const t = c.data as Task;
      return [t.referenceSolution, t.wrongSolutions[0]!.content].map((a) => ({ c, work: { final: a, first: a, answer: null } }));
    });
    bothOutcomes(await expectBlind(suite, works));
  });

  it('context-engineering (baseline, candidate): the final environments of the golden jobs and an untouched one', async () => {
    const log = await FileEventLog.open({ root: GOLDEN });
    const byJob = new Map<string, StoredEvent[]>();
    let config: Record<string, unknown> | null = null;
    try {
      for await (const e of log.read('context-engineering')) {
        if (e.type === 'RunStarted') config = e.data.config;
        if (e.jobId) byJob.set(e.jobId, [...(byJob.get(e.jobId) ?? []), e]);
      }
    } finally {
      await log.close();
    }
    const suite = await suiteNamed('context-engineering')!.configure(config).prepare();
    const cases = new Map(suite.cases.map((c) => [c.id, c]));
    const works = [...byJob.values()].flatMap((events) => {
      const started = events.find((e) => e.type === 'JobStarted') as StoredEvent & { data: { caseId: string } };
      const c = cases.get(started.data.caseId)!;
      const environment = events.reduce(evolveEnvironment, initialEnvironment(c.data as Scenario));
      return [{ c, work: { final: null, first: null, answer: null, environment } }];
    });
    const one = [...cases.values()][0]!;
    works.push({ c: one, work: { final: null, first: null, answer: null, environment: initialEnvironment(one.data as Scenario) } });
    bothOutcomes(await expectBlind(suite, works));
  });

  it('dataset (prompt variants plain, terse): the expected answer and a wrong one for every case', async () => {
    const suite = await goldenDatasetSuite().configure(goldenDatasetConfig()).prepare();
    const works = suite.cases.flatMap((c) => {
      const expected = String((c.data as { expected?: unknown }).expected ?? '');
      return [expected, 'certainly not the answer'].map((a) => ({ c, work: { final: null, first: null, answer: a } }));
    });
    bothOutcomes(await expectBlind(suite, works));
  });

  it("memory-eviction (policies confidence, hybrid-v1): a prediction grades the same whichever policy's row carries it", () => {
    const setup = makeTestSetup();
    try {
      const protocol = loadProtocol(undefined, { configPath: setup.config.path });
      const dataset = loadDataset(setup.dataset.path, protocol.config.dataset.sha256);
      const cases = buildCases(protocol, dataset);
      const rows = readFileSync(`${GOLDEN}memory-eviction/expected/rows.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as QaAnswerRow);
      const policies = [...new Set(rows.map((r) => r.policy))].sort();
      expect(policies).to.have.length(2);
      const other = (r: QaAnswerRow) => rows.find((x) => x.case_id === r.case_id && x.policy !== r.policy)!;
      // Each row given the other policy's prediction: the rows still match the protocol, only the answers moved.
      const swapped = rows.map((r) => ({ ...r, prediction: other(r).prediction }));
      const gradeOf = (graded: GradedRow[]) => new Map(graded.map((g) => [`${g.case_id}|${g.prediction}`, [g.grade_correct, g.grade_rule]]));
      const [a, b] = [gradeOf(gradeQaRows(protocol, cases, rows)), gradeOf(gradeQaRows(protocol, cases, swapped))];
      expect(a.size).to.equal(b.size);
      for (const [k, v] of a) expect(b.get(k), k).to.deep.equal(v);
      expect(new Set([...a.values()].map((v) => v[0]))).to.deep.equal(new Set([true, false]));
    } finally {
      setup.cleanup();
    }
  });
});
