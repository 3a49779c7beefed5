import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startChatEndpoint, type ChatEndpoint } from '../support/chat-endpoint.js';
import { listFiles, readJsonl, runEvalog, runEvalogHere, tempDir } from '../support/cli.js';
import { answer, BASE_PASS, CAND_PASS, endpointEnv, writeCaseFiles } from '../support/compare-runs.js';

type Row = { case_id: string; repetition: number; status: string; passed: boolean | null };

/** The exact two-sided McNemar p by hand: 2·Σ_{k≤min(b,c)} C(b+c, k) / 2^(b+c), at most 1. */
function mcnemarByHand(b: number, c: number): number {
  const n = b + c;
  let sum = 0n;
  let term = 1n;
  for (let k = 0; k <= Math.min(b, c); k++) {
    sum += term;
    term = (term * BigInt(n - k)) / BigInt(k + 1);
  }
  return Math.min(1, (2 * Number(sum)) / 2 ** n);
}

// Fingerprint of a folder's files (names, sizes, mtimes): compare must leave it as it was.
async function folderState(dir: string): Promise<string[]> {
  const files = await listFiles(dir);
  return Promise.all(files.map(async (f) => `${f} ${(await stat(join(dir, f))).size} ${(await stat(join(dir, f))).mtimeMs}`));
}

describe('evalog compare (two dataset runs on a real HTTP endpoint; CLI in process and in child processes)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let base: ChatEndpoint;
  let cand: ChatEndpoint;
  const env = endpointEnv;

  before(async () => {
    tmp = await tempDir();
    await writeCaseFiles(tmp.dir);
    base = await startChatEndpoint(answer(BASE_PASS));
    cand = await startChatEndpoint(answer(CAND_PASS, 'q12'));
    const a = await runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--model', 'm-base', '--out', 'runs/base'], { cwd: tmp.dir, env: env(base.url) });
    expect(a.code, a.stderr).to.equal(0);
    const b = await runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--model', 'm-cand', '--out', 'runs/cand'], { cwd: tmp.dir, env: env(cand.url) });
    expect(b.code, b.stderr).to.equal(3); // q12 ended in an error
  });
  after(async () => {
    await base.close();
    await cand.close();
    await tmp.cleanup();
  });

  it('--json gives the discordant counts, the exact McNemar p and the flipped cases that the two rows.jsonl files give by hand', async () => {
    const before = [...(await folderState(join(tmp.dir, 'runs/base'))), ...(await folderState(join(tmp.dir, 'runs/cand')))];
    const r = await runEvalogHere(['compare', 'runs/base', 'runs/cand', '--json'], { cwd: tmp.dir, env: {} });
    expect(r.code, r.stderr).to.equal(0);
    const out = JSON.parse(r.stdout);
    expect(r.stdout.trim(), 'canonical: sorted keys').to.equal(JSON.stringify(sortKeys(out), null, 2));

    // By hand, from the rows files alone.
    const graded = async (dir: string) =>
      new Map((await readJsonl<Row>(join(tmp.dir, dir, 'rows.jsonl'))).filter((x) => x.status === 'succeeded').map((x) => [x.case_id, x.passed === true]));
    const A = await graded('runs/base');
    const B = await graded('runs/cand');
    const paired = [...A.keys()].filter((k) => B.has(k)).sort();
    const onlyA = paired.filter((k) => A.get(k) && !B.get(k));
    const onlyB = paired.filter((k) => !A.get(k) && B.get(k));
    expect([paired.length, onlyA.length, onlyB.length], 'the endpoints did what the test wanted').to.deep.equal([11, 1, 8]);

    expect(out.sides.map((s: { name: string; model: string }) => [s.name, s.model])).to.deep.equal([
      ['base', 'm-base'],
      ['cand', 'm-cand'],
    ]);
    expect(out.comparisons).to.have.length(1);
    const c = out.comparisons[0];
    expect(c).to.deep.include({ a: 'base', b: 'cand', n: paired.length, a_only: onlyA.length, b_only: onlyB.length });
    expect(c.passed_a).to.equal(paired.filter((k) => A.get(k)).length);
    expect(c.passed_b).to.equal(paired.filter((k) => B.get(k)).length);
    expect(c.mcnemar_p).to.equal(mcnemarByHand(onlyA.length, onlyB.length));
    expect(c.mcnemar_p).to.equal(20 / 512);
    expect(c.flipped).to.deep.equal({
      a_only: onlyA.map((case_id) => ({ case_id, repetition: 1 })),
      b_only: onlyB.map((case_id) => ({ case_id, repetition: 1 })),
    });
    // The failed job pairs with nothing and is counted.
    expect(c.unpaired).to.deep.equal({ total: 1, missing_a: 0, missing_b: 0, ungraded_a: 0, ungraded_b: 1 });
    // The seeded bootstrap: the default seed recorded; its CI holds the difference; another seed is recorded as given.
    expect(out.bootstrap).to.deep.equal({ alpha: 0.05, iterations: 10000, seed: 4789 });
    expect(c.bootstrap.difference).to.equal(c.passed_b / paired.length - c.passed_a / paired.length);
    expect(c.bootstrap.lower).to.be.at.most(c.bootstrap.difference).and.above(0);
    expect(c.bootstrap.upper).to.be.at.least(c.bootstrap.difference);
    // The test endpoint reports 11 + 5 tokens for every call: no difference, none unknown.
    expect(c.tokens.total).to.deep.equal({ known: 11, unknown: 0, mean_a: 16, mean_b: 16, mean_difference: 0 });
    expect(c.seconds.known).to.equal(11);

    const again = await runEvalogHere(['compare', 'runs/base', 'runs/cand', '--json'], { cwd: tmp.dir, env: {} });
    expect(again.stdout, 'the same figures twice').to.equal(r.stdout);
    const seeded = JSON.parse((await runEvalogHere(['compare', 'runs/base', 'runs/cand', '--json', '--seed', '7'], { cwd: tmp.dir, env: {} })).stdout);
    expect(seeded.bootstrap.seed).to.equal(7);
    expect(seeded.comparisons[0].bootstrap.seed).to.equal(7);

    const after = [...(await folderState(join(tmp.dir, 'runs/base'))), ...(await folderState(join(tmp.dir, 'runs/cand')))];
    expect(after, 'compare writes nothing').to.deep.equal(before);
  });

  it('the terminal table shows rates as percentages, p rounded, the flips and the seed', async () => {
    const r = await runEvalogHere(['compare', 'runs/base', 'runs/cand'], { cwd: tmp.dir, env: {} });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('bootstrap seed 4789, 10000 resamples, 95% CI');
    expect(r.stdout).to.match(/base vs cand: 11 paired jobs, 1 unpaired \(1 failed or unfinished in cand\)/);
    expect(r.stdout).to.include('passed            base 3 (27.3%), cand 10 (90.9%)');
    expect(r.stdout).to.include('only base passed 1, only cand passed 8');
    expect(r.stdout).to.include('exact McNemar p   0.039');
    expect(r.stdout).to.include('only base passed: q03');
    expect(r.stdout).to.include('only cand passed: q04, q05, q06, q07, q08, q09, q10, q11');
  });

  it('refuses runs of different suites or case files (exit 2, one line naming the difference); --force compares them, pairing only what pairs', async () => {
    const smoke = await runEvalogHere(['run', 'smoke', '--out', 'runs/smoke'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: undefined } });
    expect(smoke.code, smoke.stderr).to.equal(0);
    const refused = await runEvalogHere(['compare', 'runs/base', 'runs/smoke', '--json'], { cwd: tmp.dir, env: {} });
    expect(refused.code).to.equal(2);
    expect(refused.stdout).to.equal('');
    expect(refused.stderr).to.equal('evalog compare: runs base and smoke differ: suite dataset vs smoke (--force compares them anyway)\n');

    const forced = await runEvalogHere(['compare', 'runs/base', 'runs/smoke', '--json', '--force'], { cwd: tmp.dir, env: {} });
    expect(forced.code, forced.stderr).to.equal(0);
    const out = JSON.parse(forced.stdout);
    expect(out.differences).to.deep.equal(['runs base and smoke differ: suite dataset vs smoke']);
    // No case of the dataset is a smoke case: nothing pairs, every statistic is null, every job is counted unpaired.
    const withBase = out.comparisons.filter((c: { a: string }) => c.a === 'base');
    expect(withBase.length).to.be.above(0);
    for (const c of withBase) expect([c.n, c.mcnemar_p, c.bootstrap, c.unpaired.missing_b]).to.deep.equal([0, null, null, 12]);

    const other = await runEvalogHere(['run', 'dataset', '--data', 'other.jsonl', '--model', 'm-base', '--out', 'runs/other'], {
      cwd: tmp.dir,
      env: env(base.url),
    });
    expect(other.code, other.stderr).to.equal(0);
    const protocol = await runEvalogHere(['compare', 'runs/base', 'runs/other'], { cwd: tmp.dir, env: {} });
    expect(protocol.code).to.equal(2);
    expect(protocol.stderr).to.match(
      /^evalog compare: runs base and other differ: protocol config\.data\.sha256 [0-9a-f]{64} vs [0-9a-f]{64} \(--force compares them anyway\)\n$/,
    );
  });

  it('bad input: fewer than two runs, an arm no run has, a bad --seed: exit 2, one line', async () => {
    for (const [args, message] of [
      [['compare', 'runs/base'], /name two or more runs/],
      [['compare', 'runs/base', 'runs/cand', '--arm', 'treatment'], /--arm treatment: run base has no such arm \(its arms: m-base\)/],
      [['compare', 'runs/base', 'runs/cand', '--seed', 'x'], /--seed must be an integer/],
    ] as const) {
      const r = await runEvalog([...args], { cwd: tmp.dir, env: {} });
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stderr, r.stderr).to.match(message);
      expect(r.stderr.trim().split('\n')).to.have.length(1);
    }
  });
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
