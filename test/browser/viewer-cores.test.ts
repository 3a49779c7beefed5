// The run page of every built-in suite's golden log in a real browser (Debian's Chromium): the rows
// table shows each row's canonical core as the suite's report maps it (case, arm, repetition and
// outcome of rows whose published shape names them otherwise: context-snapshot's `case` and
// `artifact_correct`, context-engineering's `cell` and `success`), the per-arm summary follows the
// layout the suite's report gives, and the job page shows the suite's row as it is published.
import { expect } from 'chai';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import type { Browser, Page } from 'playwright-core';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { rebuildOutputs } from '../../src/projections/outputs.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { tempDir } from '../support/cli.js';
import { launchBrowser } from './support.js';

// The studies' suites come from their plugins, loaded on demand: every plugin is loaded for the registry's lookups.
await loadAllPlugins();

const GOLDEN = fileURLToPath(new URL('../replay/golden/', import.meta.url));
const RUNS = ['smoke', 'dataset', 'context-snapshot', 'context-engineering', 'memory-eviction', 'memory-eviction-policy'];

describe('evalog view in Chromium: every suite read through its row core and summary layout', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let log: FileEventLog;
  let server: ViewServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    tmp = await tempDir('evalog-view-cores-');
    // A copy: the viewer opens the log, and the committed golden files stay untouched.
    await cp(GOLDEN, join(tmp.dir, 'log'), { recursive: true });
    log = await FileEventLog.open({ root: join(tmp.dir, 'log') });
    const quiet = new Writable({ write: (_c, _e, cb) => cb() });
    [server, browser] = await Promise.all([
      startViewServer({ log, discover: async () => RUNS, port: 0, onError: (err) => quiet.write(String(err)) }),
      launchBrowser(),
    ]);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await log?.close();
    await tmp?.cleanup();
  });

  /** The run page's rows (every row on one page) as the table shows them. */
  async function shownRows(runId: string): Promise<{ job: string; case: string; arm: string; outcome: string }[]> {
    await page.goto(`${server.url}#/run/${runId}?size=1000`);
    await page.locator('#rows tbody tr').first().waitFor();
    return page.$$eval('#rows tbody tr', (trs) =>
      trs.map((tr) => ({
        job: tr.getAttribute('data-job')!,
        case: tr.getAttribute('data-case')!,
        arm: tr.getAttribute('data-arm')!,
        outcome: tr.getAttribute('data-outcome')!,
      })),
    );
  }

  const summaryArms = () => page.$$eval('#summary thead th[data-arm]', (ths) => ths.map((th) => th.getAttribute('data-arm')!));

  /** The rows as the suite publishes them, derived from the same log. */
  const published = async (runId: string) => (await rebuildOutputs(log, runId, suiteNamed)).rows;

  it("context-snapshot: the protocol rows' case and artifact_correct, by job, and a column per arm", async () => {
    const rows = await published('context-snapshot');
    const shown = await shownRows('context-snapshot');
    const expected = rows.map((r) => ({ job: r.job_id, case: r.case, arm: r.arm, outcome: r.artifact_correct ? 'pass' : 'fail' }));
    const byJob = (a: { job: unknown }, b: { job: unknown }) => String(a.job).localeCompare(String(b.job));
    expect([...shown].sort(byJob)).to.deep.equal([...expected].sort(byJob));
    expect(new Set(shown.map((r) => r.outcome))).to.have.property('size', 2);
    expect(await summaryArms()).to.deep.equal(['isolated_handoff', 'snapshot']);
    // Its header is the run's scalars, not an arm.
    expect(await page.locator('#summary-header dd[data-field="scripted"]').count()).to.equal(1);
  });

  it("context-engineering: the cell rows' cell and success; cells by case and their roll-ups as columns", async () => {
    const rows = await published('context-engineering');
    const shown = await shownRows('context-engineering');
    expect(shown.map((r) => r.job).sort()).to.deep.equal(rows.map((r) => String(r.job_id)).sort());
    for (const r of rows) {
      const s = shown.find((x) => x.job === r.job_id)!;
      expect(s, String(r.job_id)).to.deep.include({ case: r.case, arm: r.cell, outcome: r.status === 'failed' ? 'error' : r.success ? 'pass' : 'fail' });
    }
    const arms = await summaryArms();
    const cells = [...new Set(rows.map((r) => String(r.cell)))].sort();
    expect(arms.filter((a) => a.endsWith(' / all repetitions'))).to.deep.equal(cells.map((c) => `${c} / all repetitions`));
    expect(arms.filter((a) => !a.endsWith(' / all repetitions')).length).to.equal(new Set(rows.map((r) => `${r.cell}/${r.case}`)).size);
  });

  it('memory-eviction QA: ungraded answer rows read as done, a column per policy', async () => {
    const rows = await published('memory-eviction');
    const shown = await shownRows('memory-eviction');
    expect(shown).to.have.length(rows.length);
    expect(new Set(shown.map((r) => r.outcome))).to.deep.equal(new Set(['done']));
    expect(await summaryArms()).to.deep.equal([...new Set(rows.map((r) => String(r.policy)))].sort());
  });

  for (const runId of ['smoke', 'dataset', 'memory-eviction-policy']) {
    it(`${runId}: generic rows by their own names, a column per arm`, async () => {
      const rows = await published(runId);
      const shown = await shownRows(runId);
      const outcome = (r: Record<string, unknown>) => (r.status === 'failed' ? 'error' : r.passed === true ? 'pass' : r.passed === false ? 'fail' : 'done');
      expect(shown).to.deep.equal(rows.map((r) => ({ job: r.job_id, case: r.case_id, arm: r.arm, outcome: outcome(r) })));
      expect(await summaryArms()).to.deep.equal([...new Set(rows.map((r) => String(r.arm)))].sort());
    });
  }

  it("the job page shows the suite's row as published, its own names and all", async () => {
    const [row] = await published('context-snapshot');
    await page.goto(`${server.url}#/run/context-snapshot/job/${encodeURIComponent(String(row!.job_id))}`);
    const raw = page.locator('#row-raw');
    await raw.waitFor();
    await raw.locator('summary').click();
    expect(JSON.parse((await raw.locator('pre').textContent())!)).to.deep.equal(row);
  });
});
