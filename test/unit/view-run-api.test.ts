// The run page's API in-process over a real dataset run: a page of the table, downloads of exactly
// the filtered rows (saved as files, the token required off loopback), the job's previous and next,
// and a 400 that names a parameter the viewer cannot use.
import { expect } from 'chai';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { FileEventLog } from '../../src/log/index.js';
import { jsonLines, rowsCsv } from '../../src/projections/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { readJsonl, tempDir } from '../support/cli.js';

const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

describe('evalog view: the run page API', function () {
  this.timeout(60_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let log: FileEventLog;
  let server: ViewServer;
  let rows: (Record<string, unknown> & { job_id: string; case_id: string; passed: boolean })[];

  before(async () => {
    tmp = await tempDir('evalog-view-run-api-');
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'qa.jsonl'));
    const code = await runCli(['run', 'dataset', '--data', 'qa.jsonl', '--out', 'runs/qa'], { stdout: sink(), stderr: sink(), env: {}, cwd: tmp.dir });
    expect(code).to.equal(0);
    rows = await readJsonl(join(tmp.dir, 'runs/qa/rows.jsonl'));
    log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
    // Off loopback a token is required: downloads are API paths like any other.
    server = await startViewServer({ log, discover: async () => ['qa'], port: 0, token: 'tok-run-api' });
  });
  after(async () => {
    await server?.close();
    await log?.close();
    await tmp?.cleanup();
  });

  const get = (p: string) => fetch(`${server.url}api/runs/qa/${p}${p.includes('?') ? '&' : '?'}token=tok-run-api`);

  it('serves one page of the filtered, sorted table with its counts', async () => {
    const body = (await (await get('page?outcome=fail&size=3&page=2&sort=case&dir=desc')).json()) as {
      table: { rows: { job_id: string }[]; matched: number; total: number; pages: number };
    };
    const failed = rows.filter((r) => !r.passed).sort((a, b) => (a.case_id < b.case_id ? 1 : -1));
    expect(body.table).to.deep.include({ total: rows.length, matched: failed.length, pages: Math.ceil(failed.length / 3) });
    expect(body.table.rows.map((r) => r.job_id)).to.deep.equal(failed.slice(3, 6).map((r) => r.job_id));
    expect(body).to.not.have.property('rows');
  });

  it('downloads exactly the rows the filters let through, every page, as files (CSV as export --rows, JSON Lines as rows.jsonl)', async () => {
    const chosen = rows.filter((r) => !r.passed && r.case_id.includes('a'));
    const csv = await get('rows.csv?outcome=fail&case=a&page=2&size=1');
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="qa-rows.csv"');
    expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(await csv.text()).to.equal(rowsCsv(chosen));
    const jsonl = await get('rows.jsonl?outcome=fail&case=a');
    expect(await jsonl.text()).to.equal(jsonLines(chosen));
    // The same bytes rows.jsonl has for those rows: nothing rounded or reshaped.
    const file = (await readFile(join(tmp.dir, 'runs/qa/rows.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(
      jsonLines(chosen)
        .split('\n')
        .filter(Boolean)
        .every((l) => file.includes(l)),
    ).to.equal(true);
    expect((await fetch(`${server.url}api/runs/qa/rows.csv`)).status).to.equal(401);
  });

  it("gives a job's previous and next in the table's order, with its row", async () => {
    const order = rows.filter((r) => r.passed).map((r) => r.job_id);
    const around = (await (await get(`jobs/${encodeURIComponent(order[1]!)}/around?outcome=pass`)).json()) as Record<string, unknown>;
    expect(around).to.deep.include({ prev: order[0], next: order[2], position: 2, matched: order.length });
    expect((around.row as { input: string }).input).to.equal(rows.find((r) => r.job_id === order[1])!.input);
  });

  it('refuses a parameter it cannot use with a 400 that names it', async () => {
    const res = await get('page?sort=colour');
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: string }).error).to.match(/^sort must be one of job_id, /);
    expect((await get('rows.csv?size=0')).status).to.equal(400);
  });
});
