// The viewer in-process against damaged runs: a missing or altered blob is an answer naming the
// blob and its event (shown on the job page), never an HTTP 500; a damaged run is listed with an
// error that names the run, not the server's path; auth schemes are case-insensitive.
import { expect } from 'chai';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { FileEventLog, runLogPaths } from '../../src/log/index.js';
import { startViewServer, type ViewServer } from '../../src/view/index.js';
import { alterBlob, removeBlob } from '../support/blob-pack.js';
import { tempDir } from '../support/cli.js';

const sink = () => new Writable({ write: (_c, _e, cb) => cb() });

/** Byte offset of every frame of a log file, in order. */
async function frameOffsets(file: string): Promise<number[]> {
  const bytes = await readFile(file);
  const out: number[] = [];
  for (let at = 8; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at)) out.push(at);
  return out;
}

describe('evalog view: damaged runs', function () {
  this.timeout(60_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let root: string;
  let log: FileEventLog;
  let server: ViewServer;
  const errors: unknown[] = [];

  before(async () => {
    tmp = await tempDir('evalog-view-damage-');
    root = join(tmp.dir, 'runs');
    const code = await runCli(['run', 'smoke', '--out', 'runs/ok', '--repetitions', '1'], { stdout: sink(), stderr: sink(), env: {}, cwd: tmp.dir });
    expect(code).to.equal(0);
    for (const copy of ['noblob', 'edited', 'broken']) await cp(join(root, 'ok'), join(root, copy), { recursive: true });
    const file = runLogPaths(root, 'broken').events;
    const bytes = await readFile(file);
    bytes[(await frameOffsets(file))[3]! + 12]! ^= 0x55;
    await writeFile(file, bytes);
    log = await FileEventLog.open({ root });
    server = await startViewServer({
      log,
      discover: async () => ['broken', 'edited', 'noblob', 'ok'],
      port: 0,
      host: '0.0.0.0',
      onError: (e) => errors.push(e),
    });
  });
  after(async () => {
    await server?.close();
    await log?.close();
    await tmp?.cleanup();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${server.port}/${path}`, { headers: { Authorization: `Bearer ${server.token}`, ...headers } });

  async function firstMessage(runId: string): Promise<{ hash: string; eventId: string }> {
    for await (const e of log.read('ok')) {
      if (e.type === 'ProviderCallRequested') return { hash: e.data.messages[0]!, eventId: e.id };
    }
    throw new Error(`no request in ${runId}`);
  }

  for (const [runId, damage] of [
    ['noblob', 'missing'],
    ['edited', 'altered'],
  ] as const) {
    it(`a ${damage} blob: the message answer names the blob and the event (409), no 500 and nothing logged as internal`, async () => {
      const { hash, eventId } = await firstMessage(runId);
      const { dir } = runLogPaths(root, runId);
      if (damage === 'missing') await removeBlob(dir, hash);
      else await alterBlob(dir, hash);
      const res = await get(`api/runs/${runId}/blobs/${hash}`);
      expect(res.status).to.equal(409);
      const body = (await res.json()) as { error: string };
      expect(body.error).to.include(`blob ${hash}`).and.include(`event ${eventId}`).and.include(damage);
      expect(body.error).to.not.include(root);
      expect(errors).to.deep.equal([]);
    });
  }

  it("a damaged run is listed with an error that names the run folder, not the server's absolute path", async () => {
    const res = await get('api/runs');
    expect(res.status).to.equal(200);
    const { runs } = (await res.json()) as { runs: { runId: string; error: string | null }[] };
    const broken = runs.find((r) => r.runId === 'broken')!;
    expect(broken.error).to.be.a('string').and.include('broken/log/events.evlog: damaged frame at byte');
    expect(JSON.stringify(runs)).to.not.include(root);
  });

  it('accepts the Authorization scheme in any case (bearer, BEARER), still refusing a wrong token', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      expect((await get('api/runs', { Authorization: `${scheme} ${server.token}` })).status, scheme).to.equal(200);
    }
    expect((await get('api/runs', { Authorization: `bearer ${server.token}x` })).status).to.equal(401);
    expect((await get('api/runs', { Authorization: `Basic ${server.token}` })).status).to.equal(401);
  });
});
