// The run page in a real browser (Debian's Chromium) against real runs of the CLI: a dataset run
// with two prompt arms (one answers from the scripted model's table, one repeats the question),
// a smoke run killed midway, and a dataset run of 10 000 cases. Filters, search and sort live in
// the URL and survive a reload; downloads hold exactly the filtered rows, unrounded; search finds
// the one job whose output holds a string; the job page steps through the table's order and shows
// the job's input, output and expected value with no empty section; a killed run says interrupted;
// the 10 000-job page shows its first rows, its count and a search over all rows (its time is
// printed as a figure; the 3 s target is measured by hand, see bench/README.md, since a timed test
// fails on a loaded machine for reasons that are not the page's).
import { expect } from 'chai';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { parseCsv } from '../../src/core/csv.js';
import { rowsCsv } from '../../src/projections/rows-csv.js';
import { readJsonl, runEvalog, runKilledAfterJobs, tempDir } from '../support/cli.js';
import { startMockServer } from '../support/mock-server.js';
import { screenshot, type ViewerProcess, openRunsViewer, emptySections } from './support.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const BIG = 10_000;

type Row = Record<string, unknown> & { job_id: string; case_id: string; arm: string; passed: boolean; input: string; output: string; expected: string };

describe('evalog view in Chromium: the run page', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let viewer: ViewerProcess;
  let browser: Browser;
  let page: Page;
  let rows: Row[];

  before(async () => {
    tmp = await tempDir('evalog-view-run-');
    await mkdir(join(tmp.dir, 'runs'));
    // The examples' questions and 30 echo cases (so the table has several pages).
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'cases.jsonl'));
    const echo = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({ id: `echo-${String(i).padStart(2, '0')}`, input: `Reply with exactly: item-${i}`, expected: `item-${i}` }),
    );
    await writeFile(join(tmp.dir, 'cases.jsonl'), `${await readFile(join(tmp.dir, 'cases.jsonl'), 'utf8')}${echo.join('\n')}\n`);
    // 10 000 echo cases, every seventh answered wrong by its expected value.
    const big = Array.from({ length: BIG }, (_, i) =>
      JSON.stringify({ id: `c${String(i).padStart(5, '0')}`, input: `Reply with exactly: v${i}`, expected: i % 7 === 0 ? `w${i}` : `v${i}` }),
    );
    await writeFile(join(tmp.dir, 'big.jsonl'), `${big.join('\n')}\n`);
    const slow = await startMockServer(['--latency-ms', '100-200'], tmp.dir);
    try {
      const [qa, cut, large] = await Promise.all([
        // p2 puts the question after "Reply with exactly:", so the scripted model repeats it: a second arm that fails the questions.
        runEvalog(
          ['run', 'dataset', '--data', 'cases.jsonl', '--out', 'runs/qa', '--prompt', '{{input}}', '--prompt', '{{input}}\nReply with exactly: {{input}}'],
          { cwd: tmp.dir },
        ),
        runKilledAfterJobs(
          ['run', 'smoke', '--out', 'runs/cut', '--concurrency', '2', '--base-url', slow.url, '--model', 'evalog-scripted'],
          { cwd: tmp.dir },
          3,
        ),
        runEvalog(['run', 'dataset', '--data', 'big.jsonl', '--out', 'runs/big', '--concurrency', '64'], { cwd: tmp.dir }),
      ]);
      expect(qa.code, qa.stderr).to.equal(0);
      expect(cut.signal, cut.stderr).to.equal('SIGKILL');
      expect(large.code, large.stderr).to.equal(0);
    } finally {
      await slow.stop();
    }
    rows = await readJsonl<Row>(join(tmp.dir, 'runs/qa/rows.jsonl'));
    ({ viewer, browser, page } = await openRunsViewer(tmp.dir));
  });
  after(async () => {
    await browser?.close();
    await viewer?.stop();
    await tmp?.cleanup();
  });

  /** Waits until the table shows the rows of the latest query. */
  const settled = async (p: Page = page) => {
    await p.locator('#rows').waitFor();
    await p.locator('#rows-section:not([data-busy])').waitFor();
  };
  const shownJobs = () => page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-job')!));
  /** Every job the filtered table holds, page after page. */
  const allShown = async () => {
    const out: string[] = [];
    for (;;) {
      out.push(...(await shownJobs()));
      if (await page.locator('#page-next').isDisabled()) return out;
      await page.click('#page-next');
      await settled();
    }
  };
  const controls = async () => ({
    search: await page.inputValue('#search'),
    case: await page.inputValue('#filter-case'),
    arm: await page.inputValue('#filter-arm'),
    outcome: await page.inputValue('#filter-outcome'),
    size: await page.inputValue('#page-size'),
    sorted: await page.$$eval('th.sortable.asc, th.sortable.desc', (ths) =>
      ths.map((th) => `${th.getAttribute('data-sort')} ${th.className.includes('desc') ? 'desc' : 'asc'}`),
    ),
  });

  it('keeps filters, search, sort and page in the URL: a reload shows the same rows', async () => {
    await page.goto(`${viewer.url}#/run/qa`);
    await settled();
    expect(await page.locator('#rows-count').textContent()).to.equal(`${rows.length} of ${rows.length} rows`);
    await page.selectOption('#page-size', '25');
    await page.selectOption('#filter-arm', 'p1');
    await page.selectOption('#filter-outcome', 'pass');
    await page.click('th[data-sort="tokens"]');
    await page.click('th[data-sort="tokens"]');
    await page.fill('#search', 'item');
    await settled();
    await page.click('#page-next');
    await settled();
    const before = {
      jobs: await shownJobs(),
      controls: await controls(),
      count: await page.locator('#rows-count').textContent(),
      at: await page.locator('#page-at').textContent(),
    };
    const passed = rows.filter((r) => r.arm === 'p1' && r.passed && `${r.input}\n${r.output}`.includes('item'));
    expect(before.count).to.equal(`${passed.length} of ${rows.length} rows`);
    expect(before.at).to.match(/page 2 of 2/);
    expect(before.jobs).to.have.length(passed.length - 25);
    expect(new URL(page.url()).hash)
      .to.match(/arm=p1/)
      .and.match(/outcome=pass/)
      .and.match(/sort=tokens/)
      .and.match(/dir=desc/)
      .and.match(/q=item/)
      .and.match(/page=2/);
    await page.reload();
    await settled();
    expect({
      jobs: await shownJobs(),
      controls: await controls(),
      count: await page.locator('#rows-count').textContent(),
      at: await page.locator('#page-at').textContent(),
    }).to.deep.equal(before);
    expect(before.controls).to.deep.include({ search: 'item', arm: 'p1', outcome: 'pass', size: '25', sorted: ['tokens desc'] });
    await screenshot(page, 'run-page-filtered-reloaded');
  });

  it('downloads exactly the rows of the filtered table, in its order, unrounded (CSV and JSON Lines)', async () => {
    await page.goto(`${viewer.url}#/run/qa?case=o&sort=seconds&dir=desc&size=25`);
    await settled();
    await page.selectOption('#filter-outcome', 'fail');
    await settled();
    const table = await allShown();
    expect(table.length).to.be.greaterThan(3);
    const byId = new Map(rows.map((r) => [r.job_id, r]));
    // Every shown row passes the filters, sorted by seconds (largest first).
    for (const id of table)
      expect(byId.get(id))
        .to.deep.include({ passed: false })
        .and.satisfy((r: Row) => r.case_id.includes('o'));
    const secs = table.map((id) => byId.get(id)!.seconds as number);
    expect(secs).to.deep.equal([...secs].sort((a, b) => b - a));
    const download = async (id: string) => {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
      return readFile((await dl.path())!, 'utf8');
    };
    const jsonl = (await download('#download-jsonl'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
    // The suite's rows as rows.jsonl has them, figure for figure.
    expect(jsonl).to.deep.equal(table.map((id) => byId.get(id)));
    const csv = await download('#download-csv');
    expect(csv).to.equal(rowsCsv(table.map((id) => byId.get(id)!)));
    const [head, ...records] = parseCsv(csv);
    const col = head!.fields.indexOf('job_id');
    expect(records.map((r) => r.fields[col])).to.deep.equal(table);
    expect(records.map((r) => Number(r.fields[head!.fields.indexOf('seconds')]))).to.deep.equal(secs);
  });

  it("searches inputs, outputs and checks: a string only one job's output holds finds that job alone", async () => {
    const holders = rows.filter((r) => r.output?.includes('Sydney'));
    expect(holders.map((r) => r.job_id)).to.deep.equal(['capital-australia:p1:1']);
    expect(rows.some((r) => r.input.includes('Sydney') || r.expected.includes('Sydney'))).to.equal(false);
    await page.goto(`${viewer.url}#/run/qa`);
    await settled();
    await page.fill('#search', 'sydney');
    await settled();
    expect(await shownJobs()).to.deep.equal(['capital-australia:p1:1']);
    expect(await page.locator('#rows-count').textContent()).to.equal(`1 of ${rows.length} rows`);
    const cell = page.locator('#rows tbody tr td[data-col="output"]');
    expect(await cell.textContent()).to.equal(holders[0]!.output);
    expect(await cell.getAttribute('title')).to.equal(holders[0]!.output);
    // Reasons (the deciding check's detail) are searched too, all words in any order.
    await page.fill('#search', 'REJECT overlap');
    await settled();
    const rejected = rows.filter((r) => String(r.reason).includes('overlap-reject')).map((r) => r.job_id);
    expect(rejected.length).to.be.greaterThan(0);
    expect(await allShown()).to.deep.equal(rejected);
    await page.fill('#search', 'no such text anywhere');
    await settled();
    expect(await page.locator('#rows tbody tr').count()).to.equal(0);
    expect(await page.locator('#rows-count').textContent()).to.equal(`0 of ${rows.length} rows`);
    await page.fill('#search', 'sydney');
    await settled();
    await screenshot(page, 'run-page-search');
  });

  it('shows input, output and expected per row and the score distribution per arm', async () => {
    await page.goto(`${viewer.url}#/run/qa?q=capital`);
    await settled();
    for (const tr of await page.locator('#rows tbody tr').all()) {
      const id = (await tr.getAttribute('data-job'))!;
      const row = rows.find((x) => x.job_id === id)!;
      for (const k of ['input', 'output', 'expected'] as const) expect(await tr.locator(`td[data-col="${k}"]`).textContent(), `${id} ${k}`).to.equal(row[k]);
    }
    // Pass rate by check per arm, counted by hand from rows.jsonl.
    for (const arm of ['p1', 'p2']) {
      const checks = new Map<string, [number, number]>();
      for (const r of rows.filter((x) => x.arm === arm)) {
        for (const [c, ok] of Object.entries(r.checks as Record<string, boolean>)) {
          const [p, n] = checks.get(c) ?? [0, 0];
          checks.set(c, [p + (ok ? 1 : 0), n + 1]);
        }
      }
      for (const [c, [p, n]] of checks)
        expect(await page.locator(`#by-check tr[data-check="${c}"] td[data-arm="${arm}"] .muted`).textContent(), `${arm} ${c}`).to.equal(`${p}/${n}`);
    }
    // The echo arm fails the questions: the arms differ where they should.
    expect(await page.locator('#by-check tr[data-check="exact"] td[data-arm="p2"] .muted').textContent()).to.not.equal(
      await page.locator('#by-check tr[data-check="exact"] td[data-arm="p1"] .muted').textContent(),
    );
    await page.locator('#rows tbody tr td[data-col="input"]').first().click();
    expect(await page.locator('#rows tbody tr td[data-col="input"]').first().getAttribute('class')).to.include('open');
    await screenshot(page, 'run-page-dataset');
  });

  it("steps to the previous and next job in the table's order; the dataset job page has no empty section", async () => {
    await page.goto(`${viewer.url}#/run/qa?outcome=fail&sort=case&dir=desc`);
    await settled();
    const table = await allShown();
    await page.goto(`${viewer.url}#/run/qa?outcome=fail&sort=case&dir=desc`);
    await settled();
    await page.locator(`#rows tbody tr[data-job="${table[0]}"] a`).click();
    await page.locator('#job-nav').waitFor();
    expect(await page.locator('#job-prev').evaluate((el) => el.closest('a') === null)).to.equal(true);
    expect(await page.locator('#job-position').textContent()).to.equal(`job 1 of ${table.length} in `);
    for (let i = 1; i < 4; i += 1) {
      await page.click('#job-next');
      await page.locator('h1', { hasText: table[i]! }).waitFor();
      await page.locator('#job-position', { hasText: `job ${i + 1} of` }).waitFor();
    }
    await page.click('#job-prev');
    await page.locator('h1', { hasText: table[2]! }).waitFor();
    const row = rows.find((r) => r.job_id === table[2])!;
    expect(await page.locator('#answer-section dd[data-field="input"]').textContent()).to.equal(row.input);
    expect(await page.locator('#answer-section dd[data-field="output"]').textContent()).to.equal(row.output);
    expect(await page.locator('#answer-section dd[data-field="expected"]').textContent()).to.equal(row.expected);
    // A dataset job saves no artifact: no "Artifact revisions" heading over nothing.
    expect(await page.locator('#revisions-section').count()).to.equal(0);
    expect(await emptySections(page), 'visible sections with nothing in them').to.deep.equal([]);
    await screenshot(page, 'job-page-dataset');
    // Back to the table: the same filtered rows.
    await page.click('#job-table');
    await settled();
    expect((await shownJobs())[0]).to.equal(table[0]);
  });

  it('says interrupted on the page of a killed run, like the runs list', async () => {
    await page.goto(`${viewer.url}#/run/cut`);
    await settled();
    expect(await page.locator('#run-status').textContent()).to.equal('interrupted');
    expect(await page.locator('#interrupted-note').count()).to.equal(1);
    expect(await emptySections(page), 'visible sections with nothing in them').to.deep.equal([]);
    await screenshot(page, 'run-page-interrupted');
    await page.goto(viewer.url);
    await page.locator('tr[data-run="cut"] td[data-col="status"]', { hasText: 'interrupted' }).waitFor();
  });

  it(`loads a ${BIG}-job run page: first rows and the count shown, a search over all rows`, async () => {
    // As a user arrives: the runs list (which reads every run for its pass rate) is open first.
    await page.goto(viewer.url);
    await page.locator('tr[data-run="big"] td[data-col="done"]', { hasText: `${BIG}/${BIG}` }).waitFor({ timeout: 120_000 });
    await screenshot(page, 'runs-list-with-10000-job-run');
    const fresh = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      const start = Date.now();
      await fresh.goto(`${viewer.url}#/run/big`);
      await fresh.locator('#rows tbody tr').first().waitFor();
      await fresh.locator('#rows-count', { hasText: `${BIG} of ${BIG} rows` }).waitFor();
      const ms = Date.now() - start;
      expect(await fresh.locator('#rows tbody tr').count()).to.equal(100);
      // A search over all 10 000 rows.
      const t = Date.now();
      await fresh.fill('#search', 'w7');
      await settled(fresh);
      const searched = Date.now() - t;
      // The figures for bench/README.md (target: under 3 s each on this machine).
      process.stdout.write(`      ${BIG}-job run page: first rows and count in ${ms} ms; a search over all rows in ${searched} ms\n`);
      const hits = await fresh.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-job')));
      expect(hits.length).to.be.greaterThan(0);
      for (const id of hits) expect(id).to.match(/^c0*7\d*:/);
      await screenshot(fresh, 'run-page-10000');
    } finally {
      await fresh.close();
    }
  });
});
