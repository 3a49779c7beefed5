// `evalog view --nats` in Chromium: a run on a real nats-server shows up while it runs, completes
// live, shows summary.json's figures exactly, and its job timelines open.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { collect, startEvalog, tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { launchBrowser, leafPaths, screenshot, shown, startViewer, type ViewerProcess } from './support.js';

describe('evalog view in Chromium (JetStream log)', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle;
  let model: MockServerProcess;
  let viewer: ViewerProcess;
  let browser: Browser;

  before(async () => {
    tmp = await tempDir('evalog-view-js-');
    nats = await startNatsServer();
    [model, viewer, browser] = await Promise.all([
      startMockServer(['--latency-ms', '100-200'], tmp.dir),
      startViewer(['--nats', nats.url], tmp.dir),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await viewer?.stop();
    await model?.stop();
    await nats?.stop();
    await tmp?.cleanup();
  });

  it('follows a run live and shows the figures of its summary.json', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(viewer.url);
    await page.locator('#no-runs').waitFor();
    const run = collect(
      startEvalog(['run', 'smoke', '--out', 'runs/jsrun', '--concurrency', '2', '--nats', nats.url, '--base-url', model.url, '--model', 'evalog-scripted'], {
        cwd: tmp.dir,
      }),
    );
    await page.locator('tr[data-run="jsrun"] a').waitFor({ timeout: 60_000 });
    await page.locator('tr[data-run="jsrun"] a').click();
    await page.locator('#run-status').waitFor();
    await page.evaluate(() => ((globalThis as unknown as { noReload: boolean }).noReload = true));
    const ran = await run;
    expect(ran.code, ran.stderr).to.equal(0);
    await page.locator('#run-status', { hasText: /^completed$/ }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { noReload?: boolean }).noReload)).to.equal(true);
    await page.locator('#rows tbody tr').nth(15).waitFor();

    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/jsrun/summary.json'), 'utf8'));
    const cells = await page.$$eval('#summary td[data-arm]', (tds) =>
      // Figures are rounded for reading; each title holds summary.json's value, unrounded.
      tds.filter((td) => td.hasAttribute('title')).map((td) => [`${td.getAttribute('data-arm')}|${td.getAttribute('data-field')}`, td.getAttribute('title')]),
    );
    const expected = Object.entries(summary.arms as Record<string, unknown>).flatMap(([arm, figures]) =>
      leafPaths(figures).map(([p, v]) => [`${arm}|${p}`, shown(v)]),
    );
    expect(Object.fromEntries(cells)).to.deep.equal(Object.fromEntries(expected));
    await screenshot(page, 'jetstream-run');

    await page.locator('#rows tbody tr a').first().click();
    await page.locator('#timeline li[data-type="ProviderCallSucceeded"]').first().waitFor();
    await page.locator('li[data-type="ProviderCallRequested"] details.messages-toggle > summary').first().click();
    await page.locator('ol.messages li.msg').first().waitFor();
    await screenshot(page, 'jetstream-job');
    await page.close();
  });
});
