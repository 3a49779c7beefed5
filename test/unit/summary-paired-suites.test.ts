// Every run summary's `paired` block, from the committed golden runs' files: for a two-arm dataset
// run and a two-arm agent-loop run it is what `evalog compare` computes from the same rows.jsonl;
// for context-snapshot's arms and context-engineering's cells (rows of their own shapes) its counts
// and McNemar p are those of a hand count over rows.jsonl, agree with the arms' own figures, and are
// what compare computes with the suite report's reading of its rows;
// the tables print one line per comparison; `evalog summarize` still gives the published summary.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compareRuns, type ArmJob, type SideComparison } from '../../src/projections/compare/index.js';
import { contextEngineeringReport } from '../../packages/suite-context-engineering/src/report.js';
import { contextSnapshotReport } from '../../packages/suite-context-snapshot/src/index.js';
import { mcnemarExactP, pairedBootstrap, PUBLISHED_BOOTSTRAP, type Pair } from '../../src/stats/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { rebuildOutputs } from '../../src/projections/outputs.js';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';

// The studies' suites come from their plugins, loaded on demand: every plugin is loaded for the registry's lookups.
await loadAllPlugins();

const GOLDEN = new URL('../replay/golden/', import.meta.url);
type Json = Record<string, unknown>;

const readJson = async (path: string): Promise<Json> => JSON.parse(await readFile(new URL(path, GOLDEN), 'utf8')) as Json;
const readRows = async (path: string): Promise<Json[]> =>
  (await readFile(new URL(path, GOLDEN), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);

/** `evalog compare` on one run (its arms as sides), sides renamed from `<run>:<arm>` to the arm as the summary names them. */
function compareOneRun(runId: string, rows: Json[], run: Json, armJob?: (row: Json) => ArmJob): SideComparison[] {
  const c = compareRuns([{ runId, rows, run: run as never, ...(armJob ? { armJob } : {}) }], { force: false, bootstrap: PUBLISHED_BOOTSTRAP });
  const arm = (name: string) => name.slice(runId.length + 1);
  return c.comparisons.map((x) => ({ ...x, a: arm(x.a), b: arm(x.b) }));
}

/** Pairs of verdicts by (case, repetition), in that order (as the bootstrap maps its draws), from a hand count over the rows. */
function handPairs(
  rows: Json[],
  a: string,
  b: string,
  side: (r: Json) => { arm: string; key: string; passed: boolean | null },
): { pairs: Pair[]; keys: string[] } {
  const by = new Map<string, Map<string, boolean | null>>();
  for (const r of rows) {
    const s = side(r);
    const m = by.get(s.arm) ?? new Map<string, boolean | null>();
    m.set(s.key, s.passed);
    by.set(s.arm, m);
  }
  const keys = [...by.get(a)!.keys()].filter((k) => typeof by.get(a)!.get(k) === 'boolean' && typeof by.get(b)?.get(k) === 'boolean').sort();
  return { pairs: keys.map((k) => [by.get(a)!.get(k)!, by.get(b)!.get(k)!] as Pair), keys };
}

function expectHandCount(p: SideComparison, pairs: Pair[]): void {
  const count = (x: boolean, y: boolean) => pairs.filter(([f, s]) => f === x && s === y).length;
  const aOnly = count(true, false);
  const bOnly = count(false, true);
  expect(p).to.deep.include({ n: pairs.length, both: count(true, true), neither: count(false, false), a_only: aOnly, b_only: bOnly });
  expect(p.mcnemar_p).to.equal(mcnemarExactP(aOnly, bOnly));
  const boot = pairedBootstrap(pairs, PUBLISHED_BOOTSTRAP);
  expect(p.bootstrap).to.deep.equal({ difference: boot.mean_difference, lower: boot.lower, upper: boot.upper, seed: 4789, iterations: 10000, alpha: 0.05 });
}

describe("every run summary's paired block (golden runs)", () => {
  for (const golden of ['dataset', 'smoke']) {
    it(`${golden}: the two arms' block is what evalog compare computes from the same rows.jsonl`, async () => {
      const rows = await readRows(`${golden}/expected/rows.jsonl`);
      const summary = await readJson(`${golden}/expected/summary.json`);
      const run = await readJson(`${golden}/expected/run.json`);
      const arms = Object.keys(summary.arms as Json);
      expect(arms).to.have.length(2);
      const paired = summary.paired as SideComparison[];
      expect(paired.map((p) => [p.a, p.b])).to.deep.equal([arms]);
      expect(paired).to.deep.equal(compareOneRun(golden, rows, run));
      // The block agrees with the arms' own figures beside it when every job was graded.
      const arm = (name: string) => (summary.arms as Record<string, { passed: number; n: number }>)[name]!;
      expect([paired[0]!.passed_a, paired[0]!.passed_b]).to.deep.equal([arm(arms[0]!).passed, arm(arms[1]!).passed]);
    });
  }

  it("context-snapshot: isolated_handoff vs snapshot on artifact_correct, a hand count of rows.jsonl, the arms' artifact_correct beside it", async () => {
    const rows = await readRows('context-snapshot/expected/rows.jsonl');
    const summary = await readJson('context-snapshot/expected/summary.json');
    const [p, ...more] = summary.paired as SideComparison[];
    expect(more).to.deep.equal([]);
    expect([p!.a, p!.b]).to.deep.equal(['isolated_handoff', 'snapshot']);
    const { pairs } = handPairs(rows, 'isolated_handoff', 'snapshot', (r) => ({
      arm: r.arm as string,
      key: `${r.case}\u0000${r.repetition}`,
      passed: r.artifact_correct as boolean,
    }));
    expect(pairs).to.have.length(8);
    expectHandCount(p!, pairs);
    const arms = summary as Record<string, { artifact_correct: number }>;
    expect([p!.passed_a, p!.passed_b]).to.deep.equal([arms.isolated_handoff!.artifact_correct, arms.snapshot!.artifact_correct]);
    // Tokens are the rows' total usage, mean per pair on each side.
    const mean = (arm: string) => rows.filter((r) => r.arm === arm).reduce((s, r) => s + (r.usage as { total_tokens: number }).total_tokens, 0) / 8;
    expect(p!.tokens.total).to.deep.include({ known: 8, unknown: 0, mean_a: mean('isolated_handoff'), mean_b: mean('snapshot') });
    // The same figures `evalog compare` computes from these rows, read as the suite's report reads them.
    const run = await readJson('context-snapshot/expected/run.json');
    expect([p]).to.deep.equal(compareOneRun('context-snapshot', rows, run, contextSnapshotReport.armJob));
  });

  it("context-engineering: baseline vs candidate cells over every scenario on success, a hand count of rows.jsonl, the roll-up's successes beside it", async () => {
    const rows = await readRows('context-engineering/expected/rows.jsonl');
    const summary = await readJson('context-engineering/expected/summary.json');
    const [p, ...more] = summary.paired as SideComparison[];
    expect(more).to.deep.equal([]);
    expect([p!.a, p!.b]).to.deep.equal(['baseline', 'candidate']);
    const { pairs, keys } = handPairs(rows, 'baseline', 'candidate', (r) => ({
      arm: r.cell as string,
      key: `${r.case}\u0000${r.repetition}`,
      passed: r.status === 'succeeded' ? (r.success as boolean) : null,
    }));
    expect(keys.length, 'one pair per scenario and repetition').to.equal(new Set(rows.map((r) => `${r.case}\u0000${r.repetition}`)).size);
    expectHandCount(p!, pairs);
    expect([p]).to.deep.equal(
      compareOneRun('context-engineering', rows, await readJson('context-engineering/expected/run.json'), contextEngineeringReport.armJob),
    );
    const rollup = summary.rollup as Record<string, { success: { successes: number } }>;
    expect([p!.passed_a, p!.passed_b]).to.deep.equal([rollup.baseline!.success.successes, rollup.candidate!.success.successes]);
    expect(p!.flipped.b_only.map((f) => f.case_id)).to.deep.equal(
      rows
        .filter((r) => r.cell === 'candidate' && r.success)
        .map((r) => r.case as string)
        .filter((c) => !rows.some((r) => r.cell === 'baseline' && r.case === c && r.success))
        .sort(),
    );
  });

  it('the tables the CLI prints after a run end with one line per comparison', async () => {
    const log = await FileEventLog.open({ root: fileURLToPath(GOLDEN), readOnly: true });
    try {
      for (const [runId, a, b] of [
        ['context-snapshot', 'isolated_handoff', 'snapshot'],
        ['context-engineering', 'baseline', 'candidate'],
        ['dataset', 'plain', 'terse'],
      ] as const) {
        const out = await rebuildOutputs(log, runId, suiteNamed);
        const [p] = (out.summary as { paired: SideComparison[] }).paired;
        const line = out.table().trimEnd().split('\n').at(-1)!;
        expect(line, runId).to.match(
          new RegExp(
            `^paired ${a} vs ${b}: ${p!.n} pairs, ${a} only ${p!.a_only}, ${b} only ${p!.b_only}, p[=<][0-9.]+, difference [+−±][0-9.]+ points, 95% CI \\[`,
          ),
        );
      }
    } finally {
      await log.close();
    }
  });
});
