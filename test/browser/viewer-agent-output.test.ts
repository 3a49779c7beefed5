// The job page of a failed external agent in a real browser (Debian's Chromium): how the agent
// ended and the end of its stderr and stdout, as `evalog show` prints them, put in as text: an
// agent that prints HTML or ANSI escapes shows them, it cannot inject or repaint anything. A job
// whose agent answered has no such section.
import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';
import { emptySections, openRunsViewer, screenshot, type ViewerProcess } from './support.js';

const NODE_AGENT = fileURLToPath(new URL('../../examples/agents/node-agent.mjs', import.meta.url));
const FAIL = `process.stdout.write('partial answer\\n');
process.stderr.write('<img src=x onerror="document.title=\\'owned\\'">\\n\\x1b[31mboom: 404 no such route /v1/chat/completionz\\x1b[0m\\n');
process.exitCode = 1;
`;

describe('evalog view in Chromium: a failed agent on its job page', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let viewer: ViewerProcess;
  let browser: Browser;
  let page: Page;
  let jobs: Record<string, string>;

  before(async () => {
    tmp = await tempDir('evalog-view-agent-');
    await mkdir(join(tmp.dir, 'runs'));
    await writeFile(join(tmp.dir, 'fail.mjs'), FAIL);
    const agents = { fail: { command: ['node', join(tmp.dir, 'fail.mjs')] }, control: { command: ['node', NODE_AGENT] } };
    await writeFile(join(tmp.dir, 'agents.json'), JSON.stringify({ agents }));
    const r = await runEvalogHere(['run', 'smoke', '--config', 'agents.json', '--case', 'fruit_basket', '--repetitions', '1', '--out', 'runs/a'], {
      cwd: tmp.dir,
    });
    expect(r.code, r.stderr).to.equal(3);
    jobs = Object.fromEntries((await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'))).map((row) => [String(row.arm), String(row.job_id)]));
    ({ viewer, browser, page } = await openRunsViewer(tmp.dir));
  });
  after(async () => {
    await browser?.close();
    await viewer?.stop();
    await tmp?.cleanup();
  });

  const open = async (jobId: string) => {
    await page.goto(`${viewer.url}#/run/a/job/${encodeURIComponent(jobId)}`);
    await page.locator('#timeline').waitFor();
  };

  it('shows how the agent ended and the end of its stderr and stdout, as text', async () => {
    await open(jobs.fail!);
    await page.locator('#agent-output-section').waitFor();
    expect(await page.locator('#agent-ending').textContent()).to.equal('exited_nonzero the agent exited with code 1');
    const stderr = await page.locator('#agent-output-section dd[data-stream="stderr"] pre').textContent();
    expect(stderr).to.equal('<img src=x onerror="document.title=\'owned\'">\n\\x1b[31mboom: 404 no such route /v1/chat/completionz\\x1b[0m');
    expect(await page.locator('#agent-output-section dd[data-stream="stdout"] pre').textContent()).to.equal('partial answer');
    // The agent's markup is text: no element was made of it, and its handler never ran.
    expect(await page.locator('#agent-output-section img').count()).to.equal(0);
    expect(await page.title()).to.not.equal('owned');
    expect(await emptySections(page), 'visible sections with nothing in them').to.deep.equal([]);
    await screenshot(page, 'job-page-agent-failed');
  });

  it('a job whose agent answered has no agent output section', async () => {
    await open(jobs.control!);
    await page.locator('#timeline li[data-type="AgentExited"]').waitFor();
    expect(await page.locator('#agent-output-section').count()).to.equal(0);
  });
});
