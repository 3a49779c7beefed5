// The EventLog contract against the embedded file log, plus what only a file log has: layout,
// torn-tail recovery, mid-file damage, the writer lock and readers in another process.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { encodeEvent, type StoredEvent } from '../../src/events/index.js';
import { FileEventLog, InvalidRunIdError, MAGIC, runLogPaths, type FileEventLogOptions } from '../../src/log/file/index.js';
import { LogCorruptedError, LogLockedError } from '../../src/log/index.js';
import { jobEvents, jobStarted, toolCalled, uniqueRunId } from '../support/events.js';
import { eventLogContract } from './eventlog.contract.js';

eventLogContract('file', async () => {
  const root = await mkdtemp(join(tmpdir(), 'evalog-contract-'));
  const log = await FileEventLog.open({ root, onWarning: () => undefined });
  return {
    log,
    reopen: () => FileEventLog.open({ root }),
    cleanup: async () => {
      await log.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

async function readAll(log: FileEventLog, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  return out;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

/** Start offsets of the frames of a log file, parsed independently of the implementation. */
async function frameOffsets(file: string): Promise<number[]> {
  const bytes = await readFile(file);
  const offsets: number[] = [];
  for (let at = MAGIC.length + 2; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at)) offsets.push(at);
  return offsets;
}

const repo = process.cwd();
const childCode = `
const [mod, support, root, runId, mode, count] = process.argv.slice(1);
const { FileEventLog } = await import(mod);
const ev = await import(support);
const log = await FileEventLog.open({ root });
if (mode === 'hold') {
  await log.append([ev.jobStarted(runId)]);
  console.log('ready');
  process.stdin.resume();
  process.stdin.on('end', () => log.close().then(() => process.exit(0)));
} else {
  const events = ev.jobEvents(runId, Number(count));
  for (let i = 0, size = 1; i < events.length; i += size, size = (size % 5) + 1) {
    await log.append(events.slice(i, i + size));
    await new Promise((r) => setTimeout(r, 1));
  }
  await log.close();
  console.log('done');
}`;

/** A real node process running the file log: `hold` takes the run's lock, `append` writes `count` events. */
function child(root: string, runId: string, mode: 'hold' | 'append', count = 0): ChildProcess {
  const urls = [join(repo, 'src/log/file/index.ts'), join(repo, 'test/support/events.ts')].map((p) => pathToFileURL(p).href);
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', childCode, ...urls, root, runId, mode, String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

async function line(proc: ChildProcess, text: string): Promise<void> {
  let out = '';
  for await (const chunk of proc.stdout!) {
    out += String(chunk);
    if (out.includes(text)) return;
  }
  throw new Error(`child ended without printing ${text}`);
}

describe('FileEventLog', function () {
  this.timeout(30_000);
  let root: string;
  let warnings: string[];
  const open = (extra: Partial<FileEventLogOptions> = {}) => FileEventLog.open({ root, onWarning: (m) => warnings.push(m), ...extra });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'evalog-file-'));
    warnings = [];
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('keeps to <root>/<runId>/log/ and leaves the rest of the run folder alone', async () => {
    const runId = uniqueRunId();
    await mkdir(join(root, runId), { recursive: true });
    await writeFile(join(root, runId, 'rows.jsonl'), 'kept\n');
    await mkdir(join(root, 'not-a-run'));
    const log = await open();
    await log.append(jobEvents(runId, 3));
    const hash = await log.blobs(runId).put(Buffer.from('hello'));
    await log.close();
    const paths = runLogPaths(root, runId);
    expect((await readFile(paths.events)).subarray(0, MAGIC.length).equals(MAGIC)).to.equal(true);
    // Blobs go to one pack file beside the events (frame payload: the raw sha256, then the bytes).
    expect(await readdir(paths.dir)).to.have.members(['events.evlog', 'blobs.pack']);
    const pack = await readFile(paths.pack);
    expect(pack.subarray(pack.length - 5).toString()).to.equal('hello');
    expect(pack.subarray(pack.length - 37, pack.length - 5).toString('hex')).to.equal(hash);
    expect(await readFile(join(root, runId, 'rows.jsonl'), 'utf8')).to.equal('kept\n');
    await stat(paths.lock).then(
      () => expect.fail('lock left behind'),
      () => undefined,
    );
    const reopened = await open();
    expect((await reopened.runs()).map((r) => r.runId)).to.deep.equal([runId]);
    await reopened.close();
  });

  it('numbers seq from 1 within each run and refuses run ids that are not folder names', async () => {
    const log = await open();
    const [a, b] = [uniqueRunId(), uniqueRunId()];
    expect((await log.append([jobStarted(a), jobStarted(b), toolCalled(a, undefined, 2)])).map((r) => r.seq)).to.deep.equal([1, 1, 2]);
    expect(await caught(log.append([{ ...jobStarted(a), runId: '../escape' }]))).to.be.instanceOf(InvalidRunIdError);
    expect(() => log.blobs('a/b')).to.throw(InvalidRunIdError);
    await log.close();
  });

  it('commits concurrent appends in groups, not one fsync per event', async () => {
    const commits: number[] = [];
    const log = await open({ onCommit: (c) => commits.push(c.events) });
    const runId = uniqueRunId();
    await Promise.all(jobEvents(runId, 200).map((e) => log.append([e])));
    await log.close();
    expect(commits.reduce((a, b) => a + b, 0)).to.equal(200);
    expect(commits.length).to.be.lessThan(10);
  });

  it('spaces commits by fsyncIntervalMs when asked, gathering more events per fsync', async () => {
    const commits: number[] = [];
    const log = await open({ fsyncIntervalMs: 40, onCommit: (c) => commits.push(c.events) });
    const runId = uniqueRunId();
    const pending = [];
    const t0 = performance.now();
    for (const e of jobEvents(runId, 20)) {
      pending.push(log.append([e]));
      await new Promise((r) => setTimeout(r, 4));
    }
    await Promise.all(pending);
    const elapsed = performance.now() - t0;
    await log.close();
    expect(commits.reduce((a, b) => a + b, 0)).to.equal(20);
    // At most one commit per 40 ms (plus the first), however slowly the timers ran.
    expect(commits.length).to.be.at.most(Math.min(19, Math.ceil(elapsed / 40) + 1));
  });

  it('wakes an in-process subscriber on commit, not on the poll', async () => {
    const log = await open({ pollIntervalMs: 60_000 });
    const runId = uniqueRunId();
    const ac = new AbortController();
    const got: number[] = [];
    const sub = (async () => {
      for await (const _ of log.subscribe(runId, { signal: ac.signal })) if (got.push(performance.now()) === 2) ac.abort();
    })();
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    await log.append([jobStarted(runId)]);
    await log.append([toolCalled(runId, undefined, 2)]);
    await sub;
    expect(got).to.have.length(2);
    // The poll would take 60 s; half of it leaves room for a loaded machine and still tells the two apart.
    expect(got[1]! - t0).to.be.lessThan(30_000);
    await log.close();
  });

  it('reads from any seq of a long run, whether or not this log is writing it', async () => {
    const runId = uniqueRunId();
    const writing = await open();
    const events = jobEvents(runId, 3000);
    for (let i = 0; i < events.length; i += 700) await writing.append(events.slice(i, i + 700));
    const check = async (log: FileEventLog) => {
      for (const from of [1, 1023, 1024, 1025, 2049, 2999, 3000, 3001]) {
        const got: StoredEvent[] = [];
        for await (const e of log.read(runId, { from })) got.push(e);
        expect(got.map((e) => e.seq)).to.deep.equal(Array.from({ length: 3000 - from + 1 }, (_, i) => from + i));
        expect(got.map((e) => e.id)).to.deep.equal(events.slice(from - 1).map((e) => e.id));
      }
    };
    const reading = await open();
    const recovered = await open();
    await check(writing); // skips ahead with the checkpoints of its own appends
    await check(reading); // scans from the start
    await writing.close();
    await recovered.append([events[0]!]); // opens the run for writing: checkpoints from the recovery scan
    await check(recovered);
    await Promise.all([reading.close(), recovered.close()]);
  });

  it('flushes appends still queued when closed', async () => {
    const runId = uniqueRunId();
    let log = await open();
    const pending = [log.append(jobEvents(runId, 3)), log.append([toolCalled(runId, undefined, 4)])];
    await log.close();
    expect((await Promise.all(pending)).flat().map((r) => r.seq)).to.deep.equal([1, 2, 3, 4]);
    log = await open();
    expect(await readAll(log, runId)).to.have.length(4);
    await log.close();
  });

  it('never misses a commit at the catch-up/live boundary, with no poll to fall back on', async () => {
    const log = await open({ pollIntervalMs: 600_000 });
    const runId = uniqueRunId();
    const events = jobEvents(runId, 600);
    const follow = async () => {
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 5000);
      const got: string[] = [];
      for await (const e of log.subscribe(runId, { signal: ac.signal })) if (got.push(e.id) === events.length) break;
      clearTimeout(timer);
      return got;
    };
    const followers: Promise<string[]>[] = [];
    for (let i = 0, size = 1, batch = 0; i < events.length; i += size, size = (size % 5) + 1, batch += 1) {
      if (batch % 8 === 0) followers.push(follow());
      const appended = log.append(events.slice(i, i + size));
      if (batch % 3 === 0) await appended;
      else await new Promise((r) => setImmediate(r));
    }
    for (const got of await Promise.all(followers)) expect(got).to.deep.equal(events.map((e) => e.id));
    await log.close();
  });

  it("a follower of this process's own writer gets each event once, in order, as read() gives it: from memory while it keeps up, from the file when it falls behind", async () => {
    const log = await open();
    const runId = uniqueRunId();
    await log.append(jobEvents(runId, 3000)); // older than the writer keeps in memory (2048 events)
    const got: StoredEvent[] = [];
    const ac = new AbortController();
    let slow = false;
    let caughtUp!: () => void;
    const atNineThousand = new Promise<void>((r) => (caughtUp = r));
    const following = (async () => {
      for await (const e of log.subscribe(runId, { signal: ac.signal })) {
        got.push(e);
        // Falls behind mid-way: more than the writer keeps is appended while it sleeps.
        if (slow && got.length === 4000) await new Promise((r) => setTimeout(r, 300));
        if (got.length === 9000) caughtUp();
        if (got.length === 9100) ac.abort();
      }
    })();
    slow = true;
    const appended = jobEvents(runId, 6100, 'case-1:a:1', 3001);
    for (let i = 0; i < 6000; i += 500) await log.append(appended.slice(i, i + 500));
    await atNineThousand;
    // Then it keeps up: the last events come from the writer's memory.
    for (let i = 6000; i < 6100; i += 10) await log.append(appended.slice(i, i + 10));
    await following;
    const read = await readAll(log, runId);
    expect(got.map((e) => e.seq)).to.deep.equal(read.map((e) => e.seq));
    expect(got).to.deep.equal(read);
    // The last events came from the writer's memory: a copy with its seq, the appended object left as it was.
    const last = appended[appended.length - 1]!;
    expect(got[got.length - 1]).to.not.equal(last);
    expect(got[got.length - 1]!.data, 'the same object appended, not a decoded copy').to.equal(last.data);
    expect('seq' in last, 'the appended event is not given a seq').to.equal(false);
    await log.close();
  });

  describe('torn tail', () => {
    const tails: [string, (frame: Buffer) => Buffer][] = [
      ['a partial frame', (f) => f.subarray(0, f.length - 5)],
      ['a partial frame header', (f) => f.subarray(0, 6)],
      ['a length running past the end', (f) => Buffer.concat([f.subarray(0, 8), Buffer.from('garbage')])],
      ['trailing zero bytes', () => Buffer.alloc(4096)],
      ['a half-written frame then zeros', (f) => Buffer.concat([f.subarray(0, 12), Buffer.alloc(300)])],
    ];
    for (const [label, tail] of tails) {
      it(`is cut back to the last whole frame on open for writing: ${label}`, async () => {
        const runId = uniqueRunId();
        let log = await open();
        await log.append(jobEvents(runId, 5));
        await log.close();
        const file = runLogPaths(root, runId).events;
        const whole = (await stat(file)).size;
        const next = toolCalled(runId, undefined, 6);
        const frame = Buffer.alloc(8 + encodeEvent(next).length);
        frame.writeUInt32LE(encodeEvent(next).length, 0);
        encodeEvent(next).copy(frame, 8);
        await appendFile(file, tail(frame));
        log = await open();
        expect(await readAll(log, runId)).to.have.length(5); // reading never truncates
        expect((await stat(file)).size).to.be.greaterThan(whole);
        expect(warnings).to.deep.equal([]);
        expect((await log.append([next]))[0]).to.deep.equal({ id: next.id, seq: 6, duplicate: false });
        expect(warnings).to.have.length(1);
        expect(warnings[0]).to.include(file).and.include(`byte ${whole}`).and.include(`${file}.cut-${whole}`);
        // Nothing is deleted: the cut bytes are kept beside the log, exactly.
        expect((await readFile(`${file}.cut-${whole}`)).equals(tail(frame))).to.equal(true);
        expect((await readAll(log, runId)).map((e) => e.seq)).to.deep.equal([1, 2, 3, 4, 5, 6]);
        await log.close();
        expect((await frameOffsets(file)).length).to.equal(6);
      });
    }
  });

  it('refuses a whole last frame whose CRC fails, on read and on open for writing, and changes nothing', async () => {
    const runId = uniqueRunId();
    let log = await open();
    await log.append(jobEvents(runId, 5));
    await log.close();
    const file = runLogPaths(root, runId).events;
    const at = (await frameOffsets(file))[4]!;
    const bytes = await readFile(file);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    await writeFile(file, bytes);
    log = await open();
    const onRead = (await caught(readAll(log, runId))) as LogCorruptedError;
    const onWrite = (await caught(log.append([toolCalled(runId, undefined, 6)]))) as LogCorruptedError;
    for (const error of [onRead, onWrite]) {
      expect(error).to.be.instanceOf(LogCorruptedError);
      expect(error.offset).to.equal(at);
      expect(error.message).to.include(file).and.include(`byte ${at}`);
    }
    expect((await readFile(file)).equals(bytes)).to.equal(true);
    expect(warnings).to.deep.equal([]);
    await log.close();
  });

  describe('damage in the middle', () => {
    const damages: [string, (bytes: Buffer, at: number) => void][] = [
      [
        'a flipped payload byte',
        (b, at) => {
          b[at + 20] = b[at + 20]! ^ 0x40;
        },
      ],
      [
        'a flipped CRC byte',
        (b, at) => {
          b[at + 5] = b[at + 5]! ^ 0x01;
        },
      ],
      ['an impossible length', (b, at) => b.writeUInt32LE(0xfffffff0, at)],
      ['a length running into the next frame', (b, at) => b.writeUInt32LE(b.readUInt32LE(at) + 3, at)],
      ['a zero length', (b, at) => b.writeUInt32LE(0, at)],
    ];
    for (const [label, damage] of damages) {
      it(`names the file and byte offset, on read and on open for writing: ${label}`, async () => {
        const runId = uniqueRunId();
        let log = await open();
        await log.append(jobEvents(runId, 6));
        await log.close();
        const file = runLogPaths(root, runId).events;
        const at = (await frameOffsets(file))[2]!;
        const bytes = await readFile(file);
        damage(bytes, at);
        await writeFile(file, bytes);
        log = await open();
        const onRead = (await caught(readAll(log, runId))) as LogCorruptedError;
        const onWrite = (await caught(log.append([toolCalled(runId, undefined, 7)]))) as LogCorruptedError;
        for (const error of [onRead, onWrite]) {
          expect(error).to.be.instanceOf(LogCorruptedError);
          expect(error.offset).to.equal(at);
          expect(error.message).to.include(file).and.include(`byte ${at}`);
        }
        expect((await readFile(file)).equals(bytes)).to.equal(true);
        expect(warnings).to.deep.equal([]);
        await log.close();
      });
    }
  });

  describe('other processes', () => {
    it('refuses to append while another process holds the run, and takes over once it died', async () => {
      const runId = uniqueRunId();
      const holder = child(root, runId, 'hold');
      await line(holder, 'ready');
      const log = await open();
      const error = (await caught(log.append([toolCalled(runId, undefined, 2)]))) as LogLockedError;
      expect(error).to.be.instanceOf(LogLockedError);
      expect(error.message).to.include(String(holder.pid)).and.include(runLogPaths(root, runId).lock);
      expect(await caught((await open()).append([toolCalled(runId, undefined, 2)]))).to.be.instanceOf(LogLockedError);
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      expect((await log.append([toolCalled(runId, undefined, 2)]))[0]!.seq).to.equal(2);
      expect(await readFile(runLogPaths(root, runId).lock, 'utf8')).to.match(new RegExp(`^${process.pid}\\n`));
      await log.close();
    });

    it('follows a run that another process is appending to, from before its first event', async () => {
      const runId = uniqueRunId();
      const log = await open();
      const expected = jobEvents(runId, 400).map((e) => e.id);
      const got: string[] = [];
      const ac = new AbortController();
      const sub = (async () => {
        for await (const e of log.subscribe(runId, { signal: ac.signal })) if (got.push(e.id) === expected.length) ac.abort();
      })();
      const writer = child(root, runId, 'append', expected.length);
      let finished = false;
      const exited = Promise.all([once(writer, 'exit'), line(writer, 'done')]).finally(() => (finished = true));
      // Reads racing the other process always see a prefix of whole events, never an error.
      let reads = 0;
      while (!finished) {
        const prefix = (await readAll(log, runId)).map((e) => e.id);
        expect(prefix).to.deep.equal(expected.slice(0, prefix.length));
        reads += 1;
      }
      const [exit] = await exited;
      expect(exit[0]).to.equal(0);
      expect(reads).to.be.greaterThan(1);
      const prefix = (await readAll(log, runId)).map((e) => e.id);
      await Promise.race([sub, new Promise((r) => setTimeout(r, 5000))]);
      ac.abort();
      await sub;
      expect(prefix).to.deep.equal(expected);
      expect(got).to.deep.equal(expected);
      await log.close();
    });
  });
});
