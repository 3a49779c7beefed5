// `evalog view` in a real browser (Debian's Chromium) against the embedded log: a run is started
// while the viewer is open, appears in the runs list and completes on its page without a reload;
// then rows are filtered, a job timeline and the arm comparison are opened, and the finished run's
// page is checked figure by figure against its summary.json.
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collect, startEvalog, tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { launchBrowser, leafPaths, screenshot, shown, slowClick, startViewer, type ViewerProcess } from './support.js';

describe('evalog view in Chromium (embedded log)', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let model: MockServerProcess;
  let viewer: ViewerProcess;
  let browser: Browser;
  let page: Page;
  let run: ChildProcess | null = null;

  before(async () => {
    tmp = await tempDir('evalog-view-');
    await mkdir(join(tmp.dir, 'runs'));
    // Latency makes the run last long enough to be watched while it happens.
    [model, viewer, browser] = await Promise.all([
      startMockServer(['--latency-ms', '150-300'], tmp.dir),
      startViewer(['--runs', 'runs'], tmp.dir),
      launchBrowser(),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  after(async () => {
    if (run && run.exitCode === null) run.kill('SIGKILL');
    await browser?.close();
    await viewer?.stop();
    await model?.stop();
    await tmp?.cleanup();
  });

  it('shows a run appear in the runs list and its jobs complete live, without a reload', async () => {
    await page.goto(viewer.url);
    await page.locator('#no-runs').waitFor();
    await expect(await page.locator('#live').textContent()).to.be.oneOf(['live', 'offline']);
    run = startEvalog(
      ['run', 'smoke', '--out', 'runs/live', '--repetitions', '2', '--concurrency', '2', '--base-url', model.url, '--model', 'evalog-scripted'],
      { cwd: tmp.dir },
    );
    const ran = collect(run);
    await page.locator('tr[data-run="live"][data-status="running"] a').waitFor({ timeout: 60_000 });
    await screenshot(page, 'runs-list-live');
    // The list is drawn again as the run goes on; a press held across a redraw must still open the run.
    const answers = await slowClick(page, page.locator('tr[data-run="live"] a'), 1500, /^\/api\/runs$/);
    expect(answers, 'the runs list got fresh data while the link was held').to.be.greaterThan(0);
    await page.locator('#jobs-done').waitFor();
    await page.evaluate(() => ((globalThis as unknown as { noReload: boolean }).noReload = true));
    const seen = new Set<string>();
    seen.add((await page.locator('#jobs-done').textContent())!);
    expect(await page.locator('#run-status').textContent()).to.equal('running');
    await screenshot(page, 'run-running');
    while ((await page.locator('#run-status').textContent()) !== 'completed') {
      seen.add((await page.locator('#jobs-done').textContent())!);
      await page.waitForTimeout(100);
    }
    const result = await ran;
    expect(result.code, result.stderr).to.equal(0);
    await page.locator('#jobs-done', { hasText: /^16$/ }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as { noReload?: boolean }).noReload)).to.equal(true);
    expect(seen.size, `jobs done seen while running: ${[...seen].join(', ')}`).to.be.greaterThan(1);
    expect(await page.locator('#rows tbody tr').count()).to.equal(16);
    await screenshot(page, 'run-completed');
  });

  it('lists the finished run with its jobs, calls and tokens', async () => {
    await page.goto(viewer.url);
    const row = page.locator('tr[data-run="live"]');
    await row.waitFor();
    const usage = JSON.parse(await readFile(join(tmp.dir, 'runs/live/usage.json'), 'utf8'));
    expect(await row.locator('[data-col="done"]').textContent()).to.equal('16/16');
    expect(await row.locator('[data-col="calls"]').textContent()).to.equal(String(usage.report.calls));
    expect(await row.locator('[data-col="tokens"]').textContent()).to.equal(String(usage.report.usage.fields.totalTokens.sum));
    await screenshot(page, 'runs-list');
  });

  it('shows exactly the figures of summary.json for a finished run', async () => {
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/live/summary.json'), 'utf8'));
    await page.goto(`${viewer.url}#/run/live`);
    await page.locator('#summary').waitFor();
    const cells = await page.$$eval('#summary td[data-arm]', (tds) =>
      // Each figure is rounded for reading; its title holds summary.json's value, unrounded.
      tds.filter((td) => td.hasAttribute('title')).map((td) => [`${td.getAttribute('data-arm')}|${td.getAttribute('data-field')}`, td.getAttribute('title')]),
    );
    const expected = Object.entries(summary.arms as Record<string, unknown>).flatMap(([arm, figures]) =>
      leafPaths(figures).map(([p, v]) => [`${arm}|${p}`, shown(v)]),
    );
    expect(Object.fromEntries(cells)).to.deep.equal(Object.fromEntries(expected));
    const header = await page.$$eval('#summary-header dd', (dds) => dds.map((dd) => [dd.getAttribute('data-field'), dd.getAttribute('title')]));
    // The paired comparison of the arms is not a header field: the compare page shows it.
    const { arms: _arms, paired: _paired, ...rest } = summary;
    expect(Object.fromEntries(header)).to.deep.equal(Object.fromEntries(leafPaths(rest).map(([p, v]) => [p, shown(v)])));
    // The API serves the summary itself, equal to the file.
    const served = await page.evaluate(async () => (await fetch('/api/runs/live/summary')).json());
    expect(served).to.deep.equal(summary);
  });

  it('filters and sorts the rows table by case, arm and outcome', async () => {
    // The server filters: each change is drawn once the rows section is no longer busy.
    const settled = () => page.locator('#rows-section:not([data-busy])').waitFor();
    await page.goto(`${viewer.url}#/run/live`);
    await page.locator('#rows tbody tr').first().waitFor();
    await page.selectOption('#filter-arm', 'full_handoff');
    await settled();
    const arms = await page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-arm')));
    expect(arms).to.have.length(8);
    expect(new Set(arms)).to.deep.equal(new Set(['full_handoff']));
    await page.fill('#filter-case', 'bakery');
    await settled();
    const cases = await page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-case')));
    expect(cases).to.deep.equal(['bakery_order', 'bakery_order']);
    await page.fill('#filter-case', '');
    await page.selectOption('#filter-arm', '');
    await page.selectOption('#filter-outcome', 'pass');
    await settled();
    const outcomes = await page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-outcome')));
    expect(outcomes.length).to.be.greaterThan(0);
    expect(new Set(outcomes)).to.deep.equal(new Set(['pass']));
    expect(await page.locator('#rows-count').textContent()).to.equal(`${outcomes.length} of 16 rows`);
    await page.selectOption('#filter-outcome', '');
    await page.click('th[data-sort="tokens"]');
    await page.click('th[data-sort="tokens"]');
    await settled();
    const tokens = await page.$$eval('#rows tbody tr td:nth-child(6)', (tds) => tds.map((td) => Number.parseInt(td.textContent ?? '', 10)));
    expect(tokens).to.deep.equal([...tokens].sort((a, b) => b - a));
    await page.selectOption('#filter-arm', 'brief_handoff');
    await screenshot(page, 'run-rows-filtered');
  });

  it('opens a job timeline with provider calls, tools, checks, messages and revisions', async () => {
    await page.goto(`${viewer.url}#/run/live`);
    await page.locator('#rows tbody tr[data-job="bakery_order:brief_handoff:1"] a').click();
    await page.locator('#timeline li.event').first().waitFor();
    const types = new Set(await page.$$eval('#timeline li.event', (lis) => lis.map((li) => li.getAttribute('data-type'))));
    for (const t of [
      'JobStarted',
      'TaskDelegated',
      'ProviderCallRequested',
      'ProviderCallSucceeded',
      'ToolCalled',
      'ArtifactRevised',
      'CheckEvaluated',
      'JobGraded',
      'JobSucceeded',
    ]) {
      expect(types.has(t), `timeline has ${t}`).to.equal(true);
    }
    expect(await page.locator('#timeline li.turn').count()).to.be.greaterThan(1);
    const success = await page.locator('li[data-type="ProviderCallSucceeded"] .desc').first().textContent();
    expect(success).to.match(/\d+ ms · tokens \d+ in \/ \d+ out \/ \d+ total/);
    await page.locator('li[data-type="ProviderCallRequested"] details.messages-toggle > summary').first().click();
    await page.locator('ol.messages li.msg').first().waitFor();
    expect(await page.locator('ol.messages li.msg .role').first().textContent()).to.equal('system');
    expect(await page.locator('#revisions-section .revision').count()).to.be.greaterThan(0);
    await screenshot(page, 'job-timeline');
  });

  it('opens the paired comparison of the two arms, discordant cases marked', async () => {
    await page.goto(`${viewer.url}#/run/live`);
    await page.locator('#compare-link').click();
    await page.locator('#pairs tbody tr').first().waitFor();
    expect(await page.locator('#pairs tbody tr').count()).to.equal(8);
    expect(await page.inputValue('#arm-a')).to.equal('brief_handoff');
    expect(await page.inputValue('#arm-b')).to.equal('full_handoff');
    const rows = await page.$$eval('#pairs tbody tr', (trs) =>
      trs.map((tr) => ({ discordant: tr.getAttribute('data-discordant'), marked: tr.classList.contains('discordant'), text: tr.textContent })),
    );
    for (const r of rows) expect(r.marked).to.equal(r.discordant === 'true');
    const cell = async (k: string) => Number(await page.locator(`#paired-table td[data-cell="${k}"]`).textContent());
    const discordant = (await cell('only_a')) + (await cell('only_b'));
    expect(rows.filter((r) => r.discordant === 'true')).to.have.length(discordant);
    expect((await cell('both_pass')) + discordant + (await cell('both_fail'))).to.equal(8);
    // The paired statistics are the summary's own, figure for figure, agreeing with the page's table.
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/live/summary.json'), 'utf8'));
    expect(summary.paired).to.have.length(1);
    const field = async (k: string) => page.locator(`#stats-section dd[data-field="paired.0.${k}"]`).textContent();
    for (const [k, v] of leafPaths(summary.paired[0])) expect(await field(k), k).to.equal(shown(v));
    expect(Number(await field('a_only'))).to.equal(await cell('only_a'));
    expect(Number(await field('b_only'))).to.equal(await cell('only_b'));
    expect(await page.locator('#no-stats').count()).to.equal(0);
    await screenshot(page, 'compare-arms');
  });
});
