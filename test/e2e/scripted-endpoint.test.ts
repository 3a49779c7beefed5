// A run through --base-url against `evalog mock-server` (a real child process) is labelled scripted
// in run.json and summary.json, because the server says what it is at GET /models; an endpoint that
// does not say so, or cannot be asked, stays unlabelled.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { preflightEndpoint } from '../../src/cli/preflight.js';
import type { ModelEndpoint } from '../../src/harness/endpoint/endpoint.js';
import { runEvalog, tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

/** What these tests read of run.json. */
type RunJson = { model: { scripted: boolean; baseUrlEnv: string; name: string }; note: string };
/** What these tests read of summary.json (`snapshot`: the context-snapshot suite's only). */
type SummaryJson = { scripted: boolean; snapshot?: { n: number } };

const json = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;
const endpointAt = (baseURL: string): ModelEndpoint => ({ scripted: false, baseURL, apiKey: 'k', model: 'm', baseUrlEnv: '--base-url', apiKeyEnv: null });

describe("an endpoint that is evalog's scripted model is labelled scripted", function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let model: MockServerProcess;
  before(async () => {
    tmp = await tempDir();
    model = await startMockServer([], tmp.dir);
  });
  after(async () => {
    await model?.stop();
    await tmp.cleanup();
  });

  it('context-snapshot via --base-url against evalog mock-server: scripted in run.json and summary.json, calls served by that server', async () => {
    const before = (await model.stats()).completed;
    const r = await runEvalog(
      ['run', 'context-snapshot', '--case', 'self_contained', '--base-url', model.url, '--model', 'evalog-scripted', '--out', 'runs/cs'],
      { cwd: tmp.dir },
    );
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/it is evalog's scripted model/);
    expect(r.stdout).to.match(/scripted model: not a real model result/);
    const run = await json<RunJson>(join(tmp.dir, 'runs/cs/run.json'));
    expect(run.model).to.include({ scripted: true, baseUrlEnv: '--base-url', name: 'evalog-scripted' });
    expect(run.note).to.match(/scripted model at the endpoint from --base-url/);
    const summary = await json<SummaryJson>(join(tmp.dir, 'runs/cs/summary.json'));
    expect(summary.scripted).to.equal(true);
    expect(summary.snapshot!.n).to.equal(1);
    // The calls went to the mock-server, not to a built-in one: one lead call and the worker's turns per arm.
    const rows = (await readFile(join(tmp.dir, 'runs/cs/rows.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { usage: { requests: number } });
    const requests = rows.reduce((n, row) => n + row.usage.requests, 0);
    expect((await model.stats()).completed - before).to.equal(requests);
  });

  it('smoke via --base-url: the generic summary says scripted too', async () => {
    const r = await runEvalog(['run', 'smoke', '--repetitions', '1', '--base-url', model.url, '--model', 'evalog-scripted', '--out', 'runs/smoke'], {
      cwd: tmp.dir,
    });
    expect(r.code, r.stderr).to.equal(0);
    expect((await json<SummaryJson>(join(tmp.dir, 'runs/smoke/summary.json'))).scripted).to.equal(true);
    expect((await json<RunJson>(join(tmp.dir, 'runs/smoke/run.json'))).model.scripted).to.equal(true);
  });

  it('an endpoint whose models are owned by someone else, or that has no model list, is not taken for the scripted model', async () => {
    // A refused connection is bad input now (pre-flight, test/e2e/exit-codes.test.ts); a provider without GET /models goes on.
    const other = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/v1/')) res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-x', object: 'model', owned_by: 'someone' }] }));
      else res.writeHead(404).end(JSON.stringify({ error: { message: 'no such route' } }));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const port = (other.address() as AddressInfo).port;
      expect(await preflightEndpoint('run', endpointAt(`http://127.0.0.1:${port}/v1`))).to.not.have.property('identifiesAsScripted');
      expect(await preflightEndpoint('run', endpointAt(`http://127.0.0.1:${port}/none`))).to.not.have.property('identifiesAsScripted');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    expect(await preflightEndpoint('run', endpointAt(model.url))).to.include({ identifiesAsScripted: true });
  });
});
