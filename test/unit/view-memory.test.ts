// The viewer's memory bound with the real server and real run folders: opening more runs than
// --max-runs leaves at most that many held, the least recently viewed released first; a released
// run answers exactly as before; a running run whose page is open stays held while it is open.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import type { EvalogEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/index.js';
import { startScriptedModel } from '../../src/providers/scripted/index.js';
import { scriptedPlayers } from '../../src/app/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { tempDir } from '../support/cli.js';

const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
const RUNS = ['r1', 'r2', 'r3'];

describe('evalog view: bounded memory', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let log: FileEventLog;
  let server: ViewServer;
  const get = async (path: string) => {
    const res = await fetch(`${server.url}api/${path}`);
    expect(res.status, path).to.equal(200);
    return (await res.json()) as unknown;
  };

  before(async () => {
    tmp = await tempDir('evalog-view-memory-');
    const model = await startScriptedModel({ players: [...scriptedPlayers()] });
    const env = { EVALOG_BASE_URL: model.url, EVALOG_MODEL: 'evalog-scripted', EVALOG_API_KEY: 'sk-test' };
    try {
      for (const r of RUNS) {
        const code = await runCli(['run', 'smoke', '--out', `runs/${r}`, '--repetitions', '1'], { stdout: sink(), stderr: sink(), env, cwd: tmp.dir });
        expect(code).to.equal(0);
      }
    } finally {
      await model.close();
    }
    log = await FileEventLog.open({ root: join(tmp.dir, 'runs'), pollIntervalMs: 50 });
    // A run still going: r1's events up to its end, under another id (no RunCompleted).
    const events: EvalogEvent[] = [];
    for await (const { seq: _seq, ...e } of log.read('r1')) if (e.type !== 'RunCompleted') events.push({ ...e, runId: 'live' } as EvalogEvent);
    await log.append(events);
  });
  after(async () => {
    await server?.close();
    await log?.close();
    await tmp?.cleanup();
  });

  it('holds at most --max-runs runs, releases the least recently viewed, and a released run answers the same again', async () => {
    server = await startViewServer({ log, discover: async () => [...RUNS, 'live'].sort(), port: 0, maxRuns: 2 });
    const { runs: list } = (await get('runs')) as { runs: { runId: string; status: string }[] };
    expect(list.map((r) => [r.runId, r.status])).to.deep.equal([
      ['live', 'running'],
      ['r1', 'completed'],
      ['r2', 'completed'],
      ['r3', 'completed'],
    ]);
    expect(server.memory().held).to.have.length.at.most(2);

    const first = new Map<string, unknown>();
    for (const r of RUNS) {
      first.set(r, await get(`runs/${r}`));
      const { held, maxRuns } = server.memory();
      expect(maxRuns).to.equal(2);
      expect(held).to.have.length.at.most(2);
      expect(held.at(-1)).to.equal(r);
    }
    expect(server.memory().held).to.deep.equal(['r2', 'r3']);

    // r1 was released: asked for again, it is read again and gives the same page.
    const again = await get('runs/r1');
    expect(again).to.deep.equal(first.get('r1'));
    expect(server.memory().held).to.deep.equal(['r3', 'r1']);
    const jobId = (again as { rows: { job_id: string }[] }).rows[0]!.job_id;
    expect(jobId).to.be.a('string');
    const job = await get(`runs/r1/jobs/${encodeURIComponent(jobId)}`);
    await get('runs/r2');
    await get('runs/r3');
    expect(server.memory().held).to.not.include('r1');
    expect(await get(`runs/r1/jobs/${encodeURIComponent(jobId)}`)).to.deep.equal(job);

    // The list is the same whether its runs are held or not.
    expect(await get('runs')).to.deep.equal({ runs: list });
    expect(server.memory().held).to.have.length.at.most(2);
  });

  it('keeps a running run held while a client watches it, and releases it once the client leaves', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}api/stream?run=live`, { signal: controller.signal });
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    await reader.read(); // the stream's first bytes: the subscription is in place
    expect(server.memory().pinned).to.deep.equal(['live']);
    for (const r of RUNS) await get(`runs/${r}`);
    // The least recently viewed run is the watched one, yet the others were released instead.
    expect(server.memory().held).to.deep.equal(['live', 'r3']);
    controller.abort();
    await reader.cancel().catch(() => {});
    // The server hears of the close asynchronously: waited for, not timed.
    while (server.memory().pinned.length > 0) await new Promise((r) => setTimeout(r, 20));
    await get('runs/r1');
    await get('runs/r2');
    expect(server.memory().held).to.deep.equal(['r1', 'r2']);
  });

  it('refuses --max-runs below 1 naming the flag, exit 2', async () => {
    let err = '';
    const stderr = new Writable({
      write: (c, _e, cb) => {
        err += String(c);
        cb();
      },
    });
    const code = await runCli(['view', '--max-runs', '0', '--runs', join(tmp.dir, 'runs')], { stdout: sink(), stderr, env: {}, cwd: tmp.dir });
    expect(code).to.equal(2);
    expect(err.trim().split('\n')).to.have.length(1);
    expect(err).to.match(/--max-runs must be between 1 and/);
  });
});
