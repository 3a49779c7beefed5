// The viewer's readable figures and runs list in a real browser (Debian's Chromium) against real
// runs of the CLI: a finished smoke run, a context-engineering run (the widest summary table) and a
// smoke run killed midway (interrupted). The list shows pass rates as percentages, sorts by a
// column and filters by text; figures are rounded with the exact value on hover; wide tables
// scroll inside their own box.
import { expect } from 'chai';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runEvalogHere, runKilledAfterJobs, tempDir } from '../support/cli.js';
import { startMockServer } from '../support/mock-server.js';
import { screenshot, shown, type ViewerProcess, openRunsViewer } from './support.js';

/** The percentage text of the page for a share 0..1 ("93.8 %"). */
const percent = (rate: number) => `${Number((rate * 100).toFixed(1))} %`;

/** passed / graded over a rows.jsonl, graded meaning a boolean `passed` or `success`. */
async function passRate(file: string): Promise<number> {
  const rows = (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { passed?: unknown; success?: unknown });
  const graded = rows.map((r) => r.passed ?? r.success).filter((v) => typeof v === 'boolean');
  return graded.filter((v) => v === true).length / graded.length;
}

describe('evalog view in Chromium: readable figures and the runs list', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let viewer: ViewerProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    tmp = await tempDir('evalog-view-list-');
    await mkdir(join(tmp.dir, 'runs'));
    const slow = await startMockServer(['--latency-ms', '100-200'], tmp.dir);
    try {
      const [smoke, ce, cut] = await Promise.all([
        runEvalogHere(['run', 'smoke', '--out', 'runs/smoke'], { cwd: tmp.dir }),
        runEvalogHere(['run', 'context-engineering', '--out', 'runs/ce'], { cwd: tmp.dir }),
        runKilledAfterJobs(
          ['run', 'smoke', '--out', 'runs/cut', '--concurrency', '2', '--base-url', slow.url, '--model', 'evalog-scripted'],
          { cwd: tmp.dir },
          3,
        ),
      ]);
      expect(smoke.code, smoke.stderr).to.equal(0);
      expect(ce.code, ce.stderr).to.equal(0);
      expect(cut.signal, cut.stderr).to.equal('SIGKILL');
    } finally {
      await slow.stop();
    }
    ({ viewer, browser, page } = await openRunsViewer(tmp.dir));
  });
  after(async () => {
    await browser?.close();
    await viewer?.stop();
    await tmp?.cleanup();
  });

  const col = (run: string, key: string) => page.locator(`tr[data-run="${run}"] td[data-col="${key}"]`);

  it('lists each run with suite, model, pass rate as a percentage, jobs, status (interrupted included), start and duration', async () => {
    await page.goto(viewer.url);
    await page.locator('tr[data-run="cut"]').waitFor();
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/smoke/run.json'), 'utf8'));
    expect(await col('smoke', 'suite').textContent()).to.match(/^smoke/);
    expect(await col('smoke', 'model').textContent()).to.equal(run.model.name);
    const rate = await passRate(join(tmp.dir, 'runs/smoke/rows.jsonl'));
    expect(await col('smoke', 'pass').textContent()).to.match(new RegExp(`^${percent(rate).replace('.', '\\.')} `));
    expect(await col('ce', 'pass').textContent()).to.match(new RegExp(`^${percent(await passRate(join(tmp.dir, 'runs/ce/rows.jsonl'))).replace('.', '\\.')} `));
    expect(await col('smoke', 'done').textContent()).to.equal('16/16');
    expect(await col('smoke', 'status').textContent()).to.equal('completed');
    // Killed without a RunCompleted: the log knows its writer is gone.
    expect(await col('cut', 'status').textContent()).to.equal('interrupted');
    expect(await page.locator('tr[data-run="cut"]').getAttribute('data-status')).to.equal('interrupted');
    expect(await col('smoke', 'started').textContent()).to.equal(`${run.started_at.slice(0, 10)} ${run.started_at.slice(11, 19)} UTC`);
    expect(await col('smoke', 'duration').textContent()).to.match(/^\d+(\.\d)? s$|min/);
    await screenshot(page, 'runs-list-figures');
  });

  it('sorts the runs by pass rate when its heading is clicked, both ways', async () => {
    await page.goto(viewer.url);
    await page.locator('tr[data-run="cut"]').waitFor();
    const rates = async () => page.$$eval('#runs tbody td[data-col="pass"]', (tds) => tds.map((td) => Number.parseFloat(td.textContent ?? '')));
    await page.click('th[data-sort="pass"]');
    const up = await rates();
    expect(up).to.have.length(3);
    expect(up).to.deep.equal([...up].sort((a, b) => a - b));
    await page.click('th[data-sort="pass"]');
    const down = await rates();
    expect(down).to.deep.equal([...up].sort((a, b) => b - a));
    expect(new Set(down).size, 'the runs have different pass rates, so the order is a real test').to.be.greaterThan(1);
    await screenshot(page, 'runs-list-sorted');
  });

  it('hides the runs the filter box does not match', async () => {
    await page.goto(viewer.url);
    await page.locator('tr[data-run="cut"]').waitFor();
    await page.fill('#filter-runs', 'context-engineering');
    expect(await page.$$eval('#runs tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-run')))).to.deep.equal(['ce']);
    expect(await page.locator('#runs-count').textContent()).to.equal('1 of 3 runs');
    await page.fill('#filter-runs', 'interrupted');
    expect(await page.$$eval('#runs tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-run')))).to.deep.equal(['cut']);
    await screenshot(page, 'runs-list-filtered');
    await page.fill('#filter-runs', '');
    expect(await page.locator('#runs tbody tr').count()).to.equal(3);
  });

  it('shows figures labelled and rounded, the exact value of summary.json in the title', async () => {
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/smoke/summary.json'), 'utf8'));
    const arm = summary.arms.brief_handoff;
    await page.goto(`${viewer.url}#/run/smoke`);
    await page.locator('#summary').waitFor();
    const td = (field: string) => page.locator(`#summary td[data-arm="brief_handoff"][data-field="${field}"]`);
    expect(await td('pass_rate').textContent()).to.equal(percent(arm.pass_rate));
    expect(await td('pass_rate').getAttribute('title')).to.equal(shown(arm.pass_rate));
    // Seconds carry their unit and three significant digits; the title keeps every digit.
    expect(await td('mean_seconds').textContent()).to.equal(`${Number(arm.mean_seconds.toPrecision(3))} s`);
    expect(await td('mean_seconds').getAttribute('title')).to.equal(shown(arm.mean_seconds));
    expect(await td('mean_total_tokens').getAttribute('title')).to.equal(shown(arm.mean_total_tokens));
    // Rows are labelled from one table; the raw field name is the label's title.
    const th = page.locator('#summary th.field[title="tokens.input.unknown_calls"]');
    expect(await th.textContent()).to.equal('input tokens · calls with unknown usage');
    expect(await page.locator('#summary th.field[title="tokens.input.sum"]').textContent()).to.equal('input tokens');
    // The download is summary.json itself, unrounded.
    const href = await page.locator('#summary-download').getAttribute('href');
    expect(await page.evaluate(async (u) => (await fetch(u!)).json(), href)).to.deep.equal(summary);
    await screenshot(page, 'run-figures');
  });

  it('uses the window width, and the wide context-engineering summary scrolls in its own box, not cut off', async () => {
    // Wider than the old 1400-px cap of the page, so a cap would show here.
    await page.setViewportSize({ width: 1800, height: 900 });
    await page.goto(`${viewer.url}#/run/ce`);
    await page.locator('#summary').waitFor();
    // Measured in the page; typed loosely because the tests compile without the DOM library.
    type Box = { scrollWidth: number; clientWidth: number; scrollLeft: number; getBoundingClientRect(): { right: number } };
    type Doc = { getElementById(id: string): Box; documentElement: Box };
    type Win = { innerWidth: number; getComputedStyle(e: unknown): { overflowX: string } };
    const m = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: Doc }).document;
      const win = globalThis as unknown as Win;
      const table = doc.getElementById('summary') as Box & { closest(s: string): Box; querySelector(s: string): Box };
      const box = table.closest('.scroll');
      box.scrollLeft = box.scrollWidth;
      return {
        table: table.scrollWidth,
        box: box.clientWidth,
        boxScroll: box.scrollWidth,
        overflow: win.getComputedStyle(box).overflowX,
        lastRight: table.querySelector('thead th:last-child').getBoundingClientRect().right,
        boxRight: box.getBoundingClientRect().right,
        main: doc.getElementById('main').clientWidth,
        page: doc.documentElement.scrollWidth,
        window: win.innerWidth,
      };
    });
    expect(m.main, 'main spans the window').to.be.greaterThan(m.window * 0.95);
    expect(m.page, 'the page itself never scrolls sideways').to.be.at.most(m.window);
    if (m.table > m.box) {
      expect(m.overflow).to.be.oneOf(['auto', 'scroll']);
      expect(m.boxScroll).to.be.at.least(m.table);
      // Scrolled to its end, the last column is inside the box: nothing is out of reach.
      expect(m.lastRight).to.be.at.most(m.boxRight + 1);
    }
    expect(m.table, 'the context-engineering summary is the wide one').to.be.greaterThan(m.window);
    await screenshot(page, 'run-context-engineering');
  });
});
