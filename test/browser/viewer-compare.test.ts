// The comparison of runs in a real browser (Debian's Chromium) against real runs of the CLI: two
// dataset runs on test endpoints whose answers differ on known cases, and a smoke run (another
// suite). Runs are ticked on the runs list and compared; every figure on the page (its exact value,
// in the title) equals what `evalog compare --json` prints for the same runs, flips are marked on
// the cases that flipped, each cell opens that side's job, and refusals show the CLI's message.
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startChatEndpoint } from '../support/chat-endpoint.js';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';
import { answer, BASE_PASS, CAND_PASS, endpointEnv, IDS, writeCaseFiles } from '../support/compare-runs.js';
import { leafPaths, screenshot, shown, type ViewerProcess, openRunsViewer } from './support.js';

type Flip = { case_id: string; repetition: number };
type SideComparison = { a: string; b: string; flipped: { a_only: Flip[]; b_only: Flip[] } } & Record<string, unknown>;
type Comparison = {
  bootstrap: Record<string, number>;
  differences: string[];
  sides: { name: string; run_id: string; arm: string; jobs: number; graded: number; passed: number }[];
  comparisons: SideComparison[];
};
type Row = { job_id: string; case_id: string; repetition: number };

describe('evalog view in Chromium: runs compared side by side', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let viewer: ViewerProcess;
  let browser: Browser;
  let page: Page;

  /** `evalog compare ARGS --json`, through the CLI's own runCli in this process. */
  async function cliCompare(...args: string[]): Promise<Comparison> {
    const r = await runEvalogHere(['compare', ...args, '--json'], { cwd: tmp.dir, env: {} });
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout) as Comparison;
  }

  before(async () => {
    tmp = await tempDir('evalog-view-compare-');
    await mkdir(join(tmp.dir, 'runs'));
    await writeCaseFiles(tmp.dir);
    const base = await startChatEndpoint(answer(BASE_PASS));
    const cand = await startChatEndpoint(answer(CAND_PASS, 'q12'));
    try {
      const [a, b, smoke, smoke2] = await Promise.all([
        runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--model', 'm-base', '--out', 'runs/base'], { cwd: tmp.dir, env: endpointEnv(base.url) }),
        runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--model', 'm-cand', '--out', 'runs/cand'], { cwd: tmp.dir, env: endpointEnv(cand.url) }),
        runEvalogHere(['run', 'smoke', '--out', 'runs/smoke'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: undefined } }),
        runEvalogHere(['run', 'smoke', '--out', 'runs/smoke2'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: undefined } }),
      ]);
      expect(a.code, `${a.signal} ${a.stderr}`).to.equal(0);
      expect(b.code, b.stderr).to.equal(3); // q12 ended in an error
      expect(smoke.code, smoke.stderr).to.equal(0);
      expect(smoke2.code, smoke2.stderr).to.equal(0);
    } finally {
      await base.close();
      await cand.close();
    }
    ({ viewer, browser, page } = await openRunsViewer(tmp.dir));
  });
  after(async () => {
    await browser?.close();
    await viewer?.stop();
    await tmp?.cleanup();
  });

  /** Exact values (titles) of the figures under `scope`, by their path in the JSON. */
  const figures = (scope: string) =>
    page.$$eval(`${scope} [data-field]`, (els) => Object.fromEntries(els.map((el) => [el.getAttribute('data-field'), el.getAttribute('title')])));

  /** The page's figures equal the CLI's JSON, figure for figure: the run header, the sides, every comparison. */
  async function expectFigures(cli: Comparison): Promise<void> {
    expect(await figures('#compare-meta')).to.deep.equal(Object.fromEntries(leafPaths(cli.bootstrap, 'bootstrap').map(([p, v]) => [p, shown(v)])));
    const sides = Object.fromEntries(
      cli.sides.flatMap((s, i) => [
        ...(['jobs', 'graded', 'passed'] as const).map((k) => [`sides.${i}.${k}`, shown(s[k])]),
        [`sides.${i}.rate`, shown(s.graded === 0 ? null : s.passed / s.graded)],
      ]),
    );
    expect(await figures('#sides')).to.deep.equal(sides);
    expect(await page.locator('section.comparison').count()).to.equal(cli.comparisons.length);
    for (const [i, c] of cli.comparisons.entries()) {
      const scope = `section.comparison[data-comparison="${i}"]`;
      expect(await page.locator(`${scope} h2`).textContent()).to.equal(`${c.a} vs ${c.b}`);
      const { a: _a, b: _b, flipped, ...rest } = c;
      // A null bootstrap (nothing paired) is one dash on the page, not a figure.
      const expected = Object.fromEntries(
        leafPaths(rest)
          .filter(([p, v]) => !(p === 'bootstrap' && v === null))
          .map(([p, v]) => [p, shown(v)]),
      );
      expect(await figures(scope), `${c.a} vs ${c.b}`).to.deep.equal(expected);
      const flips = (key: string) => page.$$eval(`${scope} dd[data-flips="${key}"] a`, (as) => as.map((a) => a.textContent));
      const named = (list: Flip[]) => list.map((f) => (f.repetition === 1 ? f.case_id : `${f.case_id} (repetition ${f.repetition})`));
      expect(await flips('a_only')).to.deep.equal(named(flipped.a_only));
      expect(await flips('b_only')).to.deep.equal(named(flipped.b_only));
    }
  }

  it('ticks two runs on the runs list (kept in the URL across a reload) and opens their comparison', async () => {
    await page.goto(viewer.url);
    await page.locator('tr[data-run="smoke"]').waitFor();
    expect(await page.locator('#compare-selected').isDisabled()).to.equal(true);
    await page.check('input.select-run[data-run="base"]');
    await page.check('input.select-run[data-run="cand"]');
    expect(new URL(page.url()).hash).to.equal('#/?select=base%2Ccand');
    expect(await page.locator('#selected-runs').textContent()).to.equal('base (baseline) vs cand');
    await page.reload();
    await page.locator('tr[data-run="smoke"]').waitFor();
    expect(await page.isChecked('input.select-run[data-run="base"]')).to.equal(true);
    expect(await page.isChecked('input.select-run[data-run="cand"]')).to.equal(true);
    expect(await page.isChecked('input.select-run[data-run="smoke"]')).to.equal(false);
    // The arm picker lists the ticked runs' arms; each dataset run's one arm is named by its model.
    const arms = await page.$$eval('#compare-arm option', (os) => os.map((o) => o.getAttribute('value')));
    expect(arms).to.deep.equal(['', 'm-base', 'm-cand']);
    await screenshot(page, 'compare-runs-selected');
    await page.click('#compare-selected');
    await page.locator('#case-grid tbody tr').first().waitFor();
    expect(new URL(page.url()).hash).to.equal('#/compare?runs=base%2Ccand');
  });

  it('shows exactly the figures of `evalog compare --json`, rounded for reading', async () => {
    const cli = await cliCompare('runs/base', 'runs/cand');
    await page.goto(`${viewer.url}#/compare?runs=base,cand`);
    await page.locator('#case-grid tbody tr').first().waitFor();
    await expectFigures(cli);
    // Rounded text beside the exact titles, as the terminal table rounds them.
    const c = `section.comparison[data-comparison="0"]`;
    expect(await page.locator(`${c} [data-field="rate_a"]`).textContent()).to.equal('27.3 %');
    expect(await page.locator(`${c} [data-field="rate_b"]`).textContent()).to.equal('90.9 %');
    expect(await page.locator(`${c} [data-field="mcnemar_p"]`).textContent()).to.equal('0.0391');
    expect(await page.locator(`${c} [data-field="mcnemar_p"]`).getAttribute('title')).to.equal(String(20 / 512));
    expect(await page.locator(`${c} [data-field="bootstrap.difference"]`).textContent()).to.equal('+63.6 pp');
    expect(await page.locator('#compare-meta [data-field="bootstrap.seed"]').textContent()).to.equal('4789');
    await screenshot(page, 'compare-runs');
  });

  it('marks the flipped cases in the per-case grid, and only those', async () => {
    const cli = await cliCompare('runs/base', 'runs/cand');
    await page.goto(`${viewer.url}#/compare?runs=base,cand`);
    await page.locator('#case-grid tbody tr').first().waitFor();
    const rows = await page.$$eval('#case-grid tbody tr', (trs) =>
      trs.map((tr) => ({
        case: tr.getAttribute('data-case'),
        flipped: tr.getAttribute('data-flipped'),
        marked: tr.classList.contains('discordant'),
        passed: [...tr.querySelectorAll('.flip')].map((f) => f.getAttribute('data-passed')),
        outcomes: [...tr.querySelectorAll('td[data-side]')].map((td) => `${td.getAttribute('data-side')}=${td.getAttribute('data-outcome')}`),
      })),
    );
    expect(rows.map((r) => r.case)).to.deep.equal(IDS);
    const c = cli.comparisons[0]!;
    const onlyBase = c.flipped.a_only.map((f) => f.case_id);
    const onlyCand = c.flipped.b_only.map((f) => f.case_id);
    expect(onlyBase).to.deep.equal(['q03']);
    expect(onlyCand).to.deep.equal(['q04', 'q05', 'q06', 'q07', 'q08', 'q09', 'q10', 'q11']);
    for (const r of rows) {
      const flipped = onlyBase.includes(r.case!) ? ['base'] : onlyCand.includes(r.case!) ? ['cand'] : [];
      expect(r.passed, r.case!).to.deep.equal(flipped);
      expect(r.flipped, r.case!).to.equal(String(flipped.length > 0));
      expect(r.marked, r.case!).to.equal(flipped.length > 0);
    }
    // The candidate's q12 failed: an error, not a fail, and not a flip although base passed it.
    expect(rows.find((r) => r.case === 'q12')!.outcomes).to.deep.equal(['base=pass', 'cand=error']);
    expect(rows.find((r) => r.case === 'q03')!.outcomes).to.deep.equal(['base=pass', 'cand=fail']);
    await page.check('#only-flipped');
    expect(await page.$$eval('#case-grid tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-case')))).to.deep.equal([...onlyBase, ...onlyCand].sort());
    await screenshot(page, 'compare-runs-flipped');
  });

  it("links each cell to that side's job transcript", async () => {
    const jobOf = async (run: string, caseId: string) =>
      (await readJsonl<Row>(join(tmp.dir, 'runs', run, 'rows.jsonl'))).find((r) => r.case_id === caseId && r.repetition === 1)!.job_id;
    for (const run of ['base', 'cand']) {
      await page.goto(`${viewer.url}#/compare?runs=base,cand`);
      await page.locator('#case-grid tbody tr').first().waitFor();
      await page.click(`#case-grid tr[data-case="q03"] td[data-side="${run}"] a.transcript`);
      await page.locator('#timeline li.event').first().waitFor();
      const job = await jobOf(run, 'q03');
      expect(new URL(page.url()).hash).to.equal(`#/run/${run}/job/${encodeURIComponent(job)}`);
      expect(await page.locator('h1').textContent()).to.equal(job);
      const started = await page.$$eval('#timeline li.event', (lis) => lis.map((li) => li.getAttribute('data-type')));
      expect(started).to.include('JobStarted');
      await screenshot(page, `compare-runs-transcript-${run}`);
    }
  });

  it('shows the refusal of runs of different suites with the CLI message, and compares them anyway on request', async () => {
    const refused = await runEvalogHere(['compare', 'runs/base', 'runs/smoke', '--json'], { cwd: tmp.dir, env: {} });
    expect(refused.code).to.equal(2);
    await page.goto(`${viewer.url}#/?select=base,smoke`);
    await page.locator('tr[data-run="smoke"]').waitFor();
    expect(await page.isChecked('input.select-run[data-run="smoke"]')).to.equal(true);
    await page.click('#compare-selected');
    await page.locator('#compare-refused').waitFor();
    expect(`${await page.locator('#compare-refused').textContent()}\n`).to.equal(refused.stderr);
    expect(await page.$$eval('#compare-differences li', (lis) => lis.map((li) => li.textContent))).to.deep.equal([
      'runs base and smoke differ: suite dataset vs smoke',
    ]);
    await screenshot(page, 'compare-runs-refused');

    await page.click('#compare-anyway');
    await page.locator('#forced').waitFor();
    expect(new URL(page.url()).hash).to.equal('#/compare?runs=base%2Csmoke&force=1');
    const cli = await cliCompare('runs/base', 'runs/smoke', '--force');
    expect(await page.$$eval('#forced li', (lis) => lis.map((li) => li.textContent))).to.deep.equal(cli.differences);
    // Smoke's arms are sides of their own: every pair of sides is compared, as the CLI does.
    expect(cli.sides.length).to.be.above(2);
    await expectFigures(cli);
    await screenshot(page, 'compare-runs-forced');
  });

  it('compares one arm of each run (arm × run); an arm a run lacks is refused with the CLI message', async () => {
    await page.goto(`${viewer.url}#/?select=base,cand`);
    await page.locator('tr[data-run="smoke"]').waitFor();
    await page.selectOption('#compare-arm', 'm-base');
    expect(new URL(page.url()).hash).to.equal('#/?select=base%2Ccand&arm=m-base');
    await page.click('#compare-selected');
    await page.locator('#compare-refused').waitFor();
    const refused = await runEvalogHere(['compare', 'runs/base', 'runs/cand', '--arm', 'm-base'], { cwd: tmp.dir, env: {} });
    expect(refused.code).to.equal(2);
    expect(`${await page.locator('#compare-refused').textContent()}\n`).to.equal(refused.stderr);
    expect(await page.locator('#compare-anyway').count(), 'force does not make an arm').to.equal(0);
    await screenshot(page, 'compare-runs-no-arm');

    // One arm of each of two smoke runs: two sides, one comparison, the figures of --arm.
    await page.goto(`${viewer.url}#/?select=smoke,smoke2`);
    await page.locator('tr[data-run="smoke"]').waitFor();
    expect(await page.$$eval('#compare-arm option', (os) => os.map((o) => o.getAttribute('value')))).to.deep.equal(['', 'brief_handoff', 'full_handoff']);
    await page.selectOption('#compare-arm', 'brief_handoff');
    await page.click('#compare-selected');
    await page.locator('#case-grid tbody tr').first().waitFor();
    expect(new URL(page.url()).hash).to.equal('#/compare?runs=smoke%2Csmoke2&arm=brief_handoff');
    const cli = await cliCompare('runs/smoke', 'runs/smoke2', '--arm', 'brief_handoff');
    expect(cli.sides.map((x) => x.name)).to.deep.equal(['smoke:brief_handoff', 'smoke2:brief_handoff']);
    await expectFigures(cli);
    expect(await page.$$eval('#case-grid thead th', (ths) => ths.map((th) => th.textContent))).to.deep.equal([
      'case',
      'rep',
      ...cli.sides.map((x) => x.name),
      'flipped',
    ]);
    await screenshot(page, 'compare-runs-arm');
  });
  it("is not computed again when a run it does not compare changes (another run's events)", async () => {
    await page.goto(`${viewer.url}#/compare?runs=base,cand`);
    await page.locator('#case-grid tbody tr').first().waitFor();
    let asked = 0;
    const count = (r: { url(): string }) => void (new URL(r.url()).pathname === '/api/compare' && asked++);
    page.on('request', count);
    try {
      // A new run in the folder: its events reach the page's change stream (the runs list's).
      const r = await runEvalogHere(['run', 'smoke', '--out', 'runs/smoke3'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: undefined } });
      expect(r.code, r.stderr).to.equal(0);
      const list = await page.evaluate(async () => (await fetch('/api/runs')).json());
      expect(JSON.stringify(list), 'the viewer sees the new run').to.contain('smoke3');
      await page.waitForTimeout(1500);
      expect(asked, 'comparisons fetched while another run changed').to.equal(0);
    } finally {
      page.off('request', count);
    }
  });
});
