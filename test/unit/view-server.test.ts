// The viewer's HTTP server in-process: loopback only unless asked, a token off loopback (query,
// header or cookie, compared in constant time), 404s for anything that is not a run, job, blob or
// asset, and nothing served that holds a secret (the API key and endpoint of the run, or env).
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { FileEventLog } from '../../src/log/index.js';
import { startScriptedModel } from '../../src/providers/scripted/index.js';
import { scriptedPlayers } from '../../src/app/index.js';
import { startViewServer, tokenMatches, isLoopbackHost, type ViewServer } from '../../src/view/index.js';
import { tempDir } from '../support/cli.js';

const SECRET = 'sk-view-test-secret-3f9a1c';
const sink = () => new Writable({ write: (_c, _e, cb) => cb() });

describe('evalog view: HTTP server', function () {
  this.timeout(60_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let log: FileEventLog;
  let endpoint: string;
  const servers: ViewServer[] = [];
  const start = async (options: { host?: string; token?: string } = {}) => {
    const s = await startViewServer({ log, discover: async () => ['r1'], port: 0, ...options });
    servers.push(s);
    return s;
  };

  before(async () => {
    tmp = await tempDir('evalog-view-http-');
    const model = await startScriptedModel({ players: [...scriptedPlayers()] });
    endpoint = model.url;
    const env = { EVALOG_BASE_URL: model.url, EVALOG_MODEL: 'evalog-scripted', EVALOG_API_KEY: SECRET };
    try {
      const code = await runCli(['run', 'smoke', '--out', 'runs/r1', '--repetitions', '1'], { stdout: sink(), stderr: sink(), env, cwd: tmp.dir });
      expect(code).to.equal(0);
    } finally {
      await model.close();
    }
    log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
  });
  after(async () => {
    for (const s of servers) await s.close();
    await log?.close();
    await tmp?.cleanup();
  });

  it('listens on loopback by default, without a token, and refuses foreign Host names (DNS rebinding)', async () => {
    const s = await start();
    expect(s.host).to.equal('127.0.0.1');
    expect(s.token).to.equal(null);
    expect((await fetch(`${s.url}api/runs`)).status).to.equal(200);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request(`${s.url}api/runs`, { headers: { Host: 'evil.example:80' } }, (res) => resolve(res.statusCode!))
        .on('error', reject)
        .end();
    });
    expect(status).to.equal(403);
  });

  it('off loopback, requires the generated token as a query parameter, header or the cookie the page sets', async () => {
    const s = await start({ host: '0.0.0.0' });
    expect(s.token).to.be.a('string').with.length.greaterThan(20);
    const base = `http://127.0.0.1:${s.port}/`;
    expect((await fetch(`${base}api/runs`)).status).to.equal(401);
    expect((await fetch(`${base}`)).status).to.equal(401);
    expect((await fetch(`${base}app.js`)).status).to.equal(401);
    expect((await fetch(`${base}api/runs?token=${s.token}x`)).status).to.equal(401);
    expect((await fetch(`${base}api/runs?token=${s.token}`)).status).to.equal(200);
    expect((await fetch(`${base}api/runs`, { headers: { Authorization: `Bearer ${s.token}` } })).status).to.equal(200);
    expect((await fetch(`${base}api/runs`, { headers: { 'X-Evalog-Token': s.token! } })).status).to.equal(200);
    const page = await fetch(`${base}?token=${s.token}`);
    expect(page.status).to.equal(200);
    const cookie = page.headers.get('set-cookie')!;
    expect(cookie)
      .to.match(/HttpOnly/)
      .and.match(/SameSite=Strict/);
    expect((await fetch(`${base}app.js`, { headers: { Cookie: cookie.split(';')[0]! } })).status).to.equal(200);
  });

  it('compares tokens by value only', () => {
    expect(tokenMatches('abc', 'abc')).to.equal(true);
    expect(tokenMatches('abc', 'abd')).to.equal(false);
    expect(tokenMatches('abc', 'abcd')).to.equal(false);
    expect(tokenMatches('abc', null)).to.equal(false);
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).to.deep.equal([true, true, true, true, true]);
    expect(['0.0.0.0', '::', '192.168.1.2', 'example.com'].map(isLoopbackHost)).to.deep.equal([false, false, false, false]);
  });

  it('answers 404 for unknown runs, jobs, blobs, APIs and files, and 405 for writes', async () => {
    const s = await start();
    const status = async (p: string, init?: RequestInit) => (await fetch(`${s.url}${p}`, init)).status;
    expect(await status('api/runs/r1')).to.equal(200);
    expect(await status('api/runs/nope')).to.equal(404);
    expect(await status('api/runs/..%2F..')).to.equal(404);
    expect(await status('api/runs/r1/jobs/nope:x:1')).to.equal(404);
    expect(await status(`api/runs/r1/blobs/${'0'.repeat(64)}`)).to.equal(404);
    expect(await status('api/runs/r1/blobs/not-a-hash')).to.equal(404);
    expect(await status('api/runs/r1/compare?a=nope')).to.equal(404);
    expect(await status('api/nothing')).to.equal(404);
    expect(await status('nothing.js')).to.equal(404);
    expect(await status('%2e%2e/package.json')).to.equal(404);
    expect(await status('api/runs', { method: 'POST' })).to.equal(405);
    const { request } = await import('node:http');
    const raw = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: s.port, path: '/../../package.json' }, (res) => resolve(res.statusCode!))
        .on('error', reject)
        .end();
    });
    expect(raw).to.equal(404);
  });

  it('serves nothing that holds the API key or the endpoint, even with them in its environment', async () => {
    process.env.EVALOG_VIEW_TEST_KEY = SECRET;
    try {
      const s = await start();
      const bodies: string[] = [];
      const get = async (p: string) => {
        const res = await fetch(`${s.url}${p}`);
        expect(res.status, p).to.equal(200);
        const text = await res.text();
        bodies.push(text);
        return text;
      };
      for (const asset of ['', 'app.js', 'api.js', 'ui.js', 'style.css', 'pages/run.js']) await get(asset);
      await get('api/runs');
      await get('api/runs/r1/summary');
      await get('api/runs/r1/compare');
      const run = JSON.parse(await get('api/runs/r1')) as { rows: { job_id: string }[] };
      expect(run.rows).to.have.length(8);
      for (const r of run.rows) {
        const job = JSON.parse(await get(`api/runs/r1/jobs/${encodeURIComponent(r.job_id)}`)) as {
          timeline: { type: string; data: { messages?: string[] } }[];
        };
        for (const e of job.timeline) for (const h of e.data.messages ?? []) await get(`api/runs/r1/blobs/${h}`);
      }
      const all = bodies.join('\n');
      expect(all).to.not.include(SECRET);
      expect(all).to.not.include(endpoint);
      expect(all).to.not.include(endpoint.replace('/v1', ''));
    } finally {
      delete process.env.EVALOG_VIEW_TEST_KEY;
    }
  });
});
