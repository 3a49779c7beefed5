import { expect } from 'chai';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { EXIT, InputError, type CliIO, type Command } from '../../src/cli/io.js';
import { usageCommand } from '../../src/cli/usage.js';
import { aggregateUsage } from '../../src/projections/usage/index.js';
import {
  compressFrame,
  expandAssistantStream,
  readUsageInput,
  readUsageInputs,
  recordsFromSessionEvents,
  UsageInputError,
} from '../../src/usage-input/index.js';
import { tempDir } from '../support/cli.js';

// DeepSeek Harness session logs (format v3) as usage records: the spec's session test vectors,
// then logs written to disk (plain JSONL and multi-frame zstd) and read through the CLI.

function event(seq: number, type: string, data: unknown) {
  return { type, seq, time: seq + 1, data };
}

/** A compact stream with one usage chunk and one finish chunk, as DSH persists them. */
function stream(inputTokens: number, reason: string, extra: Record<string, number> = {}) {
  return [
    { type: 'chunk', time: 1, chunk: { type: 'usage', usage: { inputTokens, outputTokens: 2, ...extra } } },
    { type: 'chunk', time: 2, chunk: { type: 'finish', reason: { kind: reason } } },
  ];
}

describe('DSH session logs: spec test vectors (recordsFromSessionEvents)', () => {
  const vectors: { name: string; run(): void }[] = [
    {
      name: 'child with inheritedEventCount 2: inherited message skipped, failed attempt and its retry counted once each',
      run() {
        const failure = event(2, 'assistant/attempt', { turn: 2, step: 0, stream: stream(30, 'error') });
        const success = event(3, 'assistant/message', { turn: 2, step: 0, stream: stream(31, 'stop') });
        const records = recordsFromSessionEvents(
          { id: 'child', origin: 'subagent', parentSession: 'parent', inheritedEventCount: 2 },
          [event(0, 'assistant/message', { usage: { inputTokens: 999, outputTokens: 999 }, stream: [] }), failure, success, success],
          'child-log',
        );
        expect(records).to.have.length(2);
        expect(records.map((r) => r.callId)).to.deep.equal(['child-log:2', 'child-log:3']);
        const report = aggregateUsage(records);
        expect(report.byAttribution.child.calls).to.equal(2);
        expect(report.outcomes).to.deep.include({ success: 1, failure: 1 });
        expect(report.usage.fields.inputTokens.sum).to.equal(61);
      },
    },
    {
      name: 'compaction with llmStreamCall is attributed unknown; no query call is invented',
      run() {
        const records = recordsFromSessionEvents({ id: 'main' }, [
          event(0, 'assistant/message', { usage: { inputTokens: 12, outputTokens: 4 }, stream: [] }),
          event(1, 'compaction/summary', { compactionId: 'c1', llmStreamCall: true, usage: { inputTokens: 8, outputTokens: 2 } }),
          event(2, 'compaction/summary', { compactionId: 'c2', llmStreamCall: false, usage: { inputTokens: 8, outputTokens: 2 } }),
        ]);
        expect(records.map((r) => r.attribution)).to.deep.equal(['main', 'unknown']);
        expect(records.map((r) => r.callId)).to.deep.equal(['main:0', 'main:compaction:c1']);
        expect(records[1]).to.deep.include({ outcome: 'success', usage: { inputTokens: 8, outputTokens: 2 } });
      },
    },
    {
      name: 'an interrupted message is aborted without usage; an attempt with an empty stream or an unmapped finish is unknown',
      run() {
        const records = recordsFromSessionEvents({ id: 'main' }, [
          event(0, 'assistant/message', { interrupted: true, stream: [] }),
          event(1, 'assistant/attempt', { stream: [] }),
          event(2, 'assistant/attempt', { stream: stream(9, 'provider-extension') }),
        ]);
        expect(records.map((r) => r.outcome)).to.deep.equal(['aborted', 'unknown', 'unknown']);
        expect(records[0]!.usage).to.equal(undefined);
      },
    },
    {
      name: 'the last usage chunk of a stream wins over earlier ones and over data.usage',
      run() {
        const records = recordsFromSessionEvents({ id: 'main' }, [
          event(0, 'assistant/message', {
            usage: { inputTokens: 99, outputTokens: 99 },
            stream: [...stream(10, 'tool-calls'), ...stream(11, 'tool-calls')],
          }),
        ]);
        expect(records).to.have.length(1);
        expect(records[0]).to.deep.include({ outcome: 'success', usage: { inputTokens: 11, outputTokens: 2 } });
      },
    },
  ];
  for (const v of vectors) it(v.name, v.run);
});

describe('DSH session logs: records', () => {
  it('finish reasons: error → failure, aborted → aborted, stop/tool-calls/max-tokens → success, a string reason too', () => {
    const reasons = ['error', 'aborted', 'stop', 'tool-calls', 'max-tokens', 'length'];
    const records = recordsFromSessionEvents(
      { id: 's' },
      reasons.map((r, i) => event(i, 'assistant/attempt', { stream: stream(1, r) })),
    );
    expect(records.map((r) => r.outcome)).to.deep.equal(['failure', 'aborted', 'success', 'success', 'success', 'unknown']);
    const plain = recordsFromSessionEvents({ id: 's' }, [
      event(0, 'assistant/attempt', { stream: [{ type: 'chunk', time: 1, chunk: { type: 'finish', reason: 'stop' } }] }),
    ]);
    expect(plain[0]!.outcome).to.equal('success');
  });

  it('a finish without usage keeps data.usage; an invalid usage is dropped (unknown, not zero)', () => {
    const records = recordsFromSessionEvents({ id: 's' }, [
      event(0, 'assistant/message', {
        usage: { inputTokens: 5, outputTokens: 1 },
        stream: [{ type: 'chunk', time: 1, chunk: { type: 'finish', reason: { kind: 'stop' } } }],
      }),
      event(1, 'assistant/message', { usage: { inputTokens: -5 }, stream: [] }),
    ]);
    expect(records[0]!.usage).to.deep.equal({ inputTokens: 5, outputTokens: 1 });
    expect(records[1]!.usage).to.equal(undefined);
  });

  it('provider and model come from request/context and request/header config, in log order', () => {
    const records = recordsFromSessionEvents({ id: 's' }, [
      event(0, 'assistant/message', { stream: [] }),
      event(1, 'request/context', { provider: 'deepseek', model: 'deepseek-chat', contextWindow: 64000 }),
      event(2, 'assistant/message', { stream: [] }),
      event(3, 'request/header', { reason: 'change', header: { config: { model: 'deepseek-reasoner' } } }),
      event(4, 'assistant/attempt', { stream: [] }),
    ]);
    expect(records.map((r) => [r.provider, r.model])).to.deep.equal([
      [undefined, undefined],
      ['deepseek', 'deepseek-chat'],
      ['deepseek', 'deepseek-reasoner'],
    ]);
  });

  it('child only with origin "subagent" and a string parentSession', () => {
    const one = [event(0, 'assistant/message', { stream: [] })];
    expect(recordsFromSessionEvents({ id: 'a', origin: 'subagent', parentSession: 'p' }, one)[0]!.attribution).to.equal('child');
    expect(recordsFromSessionEvents({ id: 'a', origin: 'subagent' }, one)[0]!.attribution).to.equal('main');
    expect(recordsFromSessionEvents({ id: 'a', parentSession: 'p' }, one)[0]!.attribution).to.equal('main');
    expect(recordsFromSessionEvents({ id: 'a', origin: 'subagent', parentSession: 7 }, one)[0]!.attribution).to.equal('main');
  });

  it('expandAssistantStream restores every member with time0 + Σdt, and rejects malformed records', () => {
    const chunks = expandAssistantStream([
      { type: 'text-chunks', time0: 100, index: 0, dt: [5, 7], texts: ['a', 'b', 'c'] },
      { type: 'tool-call-chunks', time0: 200, index: 1, dt: [1], id: 't1', name: 'read', args: ['{"p', '":1}'] },
      { type: 'chunk', time: 300, chunk: { type: 'usage', usage: { inputTokens: 1 } } },
    ]);
    expect(chunks.map((c) => c.time)).to.deep.equal([100, 105, 112, 200, 201, 300]);
    expect(chunks[3]!.chunk).to.deep.equal({ type: 'tool-call-delta', index: 1, id: 't1', name: 'read', argumentsDelta: '{"p' });
    const bad: [unknown, RegExp][] = [
      [{}, /must be an array/],
      [[{ type: 'text-chunks', time0: 1, index: 0, dt: [], texts: ['a', 'b'] }], /dt length/],
      [[{ type: 'text-chunks', time0: 1, index: 0, dt: [], texts: [] }], /non-empty/],
      [[{ type: 'text-chunks', time0: 1, index: 0, dt: [], texts: ['a'], extra: 1 }], /exactly/],
      [[{ type: 'reasoning-chunks', time0: 1.5, index: 0, dt: [], texts: ['a'] }], /safe integer/],
      [[{ type: 'tool-call-chunks', time0: 1, index: 0, dt: [], id: '', args: ['x'] }], /id must be/],
      [[{ type: 'chunk', time: 1, chunk: [] }], /JSON object/],
      [[{ type: 'chunks', time: 1 }], /Unsupported/],
      [[null], /must be an object/],
    ];
    for (const [s, re] of bad) expect(() => expandAssistantStream(s), JSON.stringify(s)).to.throw(TypeError, re);
  });
});

// ---- Session logs on disk -------------------------------------------------------------------

interface Log {
  header: Record<string, unknown>;
  events: Record<string, unknown>[];
}

const text = (log: Log) => [log.header, ...log.events].map((v) => `${JSON.stringify(v)}\n`).join('');

/** Compresses text as several zstd frames, cut at byte offsets that split lines and a UTF-8 character. */
async function multiFrame(s: string, parts = 3): Promise<Buffer> {
  const bytes = Buffer.from(s, 'utf8');
  const cuts = [0];
  for (let i = 1; i < parts; i += 1) cuts.push(Math.floor((bytes.length * i) / parts));
  const multibyte = bytes.indexOf(Buffer.from('é'));
  if (multibyte > 0) cuts.splice(1, 0, multibyte + 1); // inside the two-byte character
  cuts.push(bytes.length);
  const sorted = [...new Set(cuts)].sort((a, b) => a - b);
  const frames: Buffer[] = [];
  for (let i = 0; i + 1 < sorted.length; i += 1) frames.push(await compressFrame(bytes.subarray(sorted[i], sorted[i + 1])));
  return Buffer.concat(frames);
}

/** The main session: context, a failed attempt, its retry, an interrupted message, compactions. */
function mainLog(): Log {
  return {
    header: { type: 'session', version: 3, id: 'sess-main', createdAt: 1700000000000, cwd: '/w', isSeeded: false, delegationDepth: 0 },
    events: [
      event(0, 'turn/start', { turn: 1 }),
      event(1, 'request/context', { provider: 'deepseek', model: 'deepseek-chat' }),
      event(2, 'step/start', { turn: 1, step: 0 }),
      event(3, 'assistant/attempt', {
        turn: 1,
        step: 0,
        stream: [{ type: 'text-chunks', time0: 10, index: 0, dt: [2], texts: ['Hal', 'f'] }, ...stream(30, 'error')],
      }),
      event(4, 'assistant/message', {
        turn: 1,
        step: 0,
        message: { role: 'assistant', content: [{ type: 'text', text: 'café' }] },
        usage: { inputTokens: 99, outputTokens: 99 },
        stream: stream(31, 'tool-calls', { totalTokens: 33, cacheReadTokens: 64 }),
      }),
      event(5, 'step/end', { turn: 1, step: 0 }),
      event(6, 'assistant/message', { turn: 1, step: 1, message: { role: 'assistant', content: [] }, stream: [], interrupted: true }),
      event(7, 'turn/end', { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } }),
      event(8, 'compaction/summary', {
        compactionId: 'k1',
        llmStreamCall: true,
        provider: 'deepseek',
        model: 'deepseek-chat',
        usage: { inputTokens: 500, outputTokens: 40 },
      }),
      event(9, 'compaction/summary', { compactionId: 'k2', llmStreamCall: false }),
    ],
  };
}

/** A subagent child forked from the main session: two inherited events, the end-seed marker, then its own. */
function childLog(): Log {
  return {
    header: {
      type: 'session',
      version: 3,
      id: 'sess-child',
      createdAt: 1700000001000,
      cwd: '/w/café',
      parentSession: 'sess-main',
      isSeeded: true,
      origin: 'subagent',
      delegationDepth: 1,
    },
    events: [
      event(0, 'request/context', { provider: 'deepseek', model: 'deepseek-chat' }),
      event(1, 'assistant/message', { turn: 1, step: 0, stream: stream(999, 'stop'), usage: { inputTokens: 999, outputTokens: 999 } }),
      event(2, 'session/end-seed', { inherited: true }),
      event(3, 'request/header', { reason: 'resume', header: { config: { provider: 'deepseek', model: 'deepseek-reasoner' } } }),
      event(4, 'assistant/message', { turn: 2, step: 0, stream: stream(12, 'stop', { reasoningTokens: 7 }) }),
      event(5, 'assistant/attempt', { turn: 2, step: 1, stream: [] }),
    ],
  };
}

describe('DSH session logs on disk (plain JSONL and multi-frame zstd)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let mainFile: string;
  let childFile: string;
  before(async () => {
    tmp = await tempDir('evalog-usage-dsh-');
    mainFile = join(tmp.dir, 'main', 'session.jsonl');
    childFile = join(tmp.dir, 'child', 'session.jsonl.zstd');
    await writeFileDeep(mainFile, text(mainLog()));
    await writeFileDeep(childFile, await multiFrame(text(childLog()), 4));
  });
  after(() => tmp.cleanup());

  it('reads a plain main session: failed attempt, retry with the last usage chunk, interrupted message, one compaction call', async () => {
    const input = await readUsageInput(mainFile);
    expect(input.format).to.equal('dsh-session');
    expect(input.sources).to.deep.equal(['sess-main']);
    expect(input.records).to.deep.equal([
      {
        callId: 'sess-main:3',
        attribution: 'main',
        outcome: 'failure',
        provider: 'deepseek',
        model: 'deepseek-chat',
        usage: { inputTokens: 30, outputTokens: 2 },
      },
      {
        callId: 'sess-main:4',
        attribution: 'main',
        outcome: 'success',
        provider: 'deepseek',
        model: 'deepseek-chat',
        usage: { inputTokens: 31, outputTokens: 2, totalTokens: 33, cacheReadTokens: 64 },
      },
      { callId: 'sess-main:6', attribution: 'main', outcome: 'aborted', provider: 'deepseek', model: 'deepseek-chat' },
      {
        callId: 'sess-main:compaction:k1',
        attribution: 'unknown',
        outcome: 'success',
        provider: 'deepseek',
        model: 'deepseek-chat',
        usage: { inputTokens: 500, outputTokens: 40 },
      },
    ]);
  });

  it('reads a multi-frame zstd child: frames split lines and a UTF-8 character; inherited prefix skipped; attributed child', async () => {
    const input = await readUsageInput(childFile);
    expect(input.records).to.deep.equal([
      {
        callId: 'sess-child:4',
        attribution: 'child',
        outcome: 'success',
        provider: 'deepseek',
        model: 'deepseek-reasoner',
        usage: { inputTokens: 12, outputTokens: 2, reasoningTokens: 7 },
      },
      { callId: 'sess-child:5', attribution: 'child', outcome: 'unknown', provider: 'deepseek', model: 'deepseek-reasoner' },
    ]);
  });

  it('evalog usage prints {files, report} for both files, given by --input and positionally', async () => {
    const r = await runIn(usageCommand, ['--input', 'main/session.jsonl', 'child/session.jsonl.zstd'], tmp.dir);
    expect(r.code, r.stderr).to.equal(EXIT.ok);
    expect(r.stdout.endsWith('\n')).to.equal(true);
    const out = JSON.parse(r.stdout);
    expect(out).to.have.all.keys('files', 'report');
    expect(out.files).to.deep.equal([mainFile, childFile]);
    const rep = out.report;
    expect(rep.calls).to.equal(6);
    expect(rep.outcomes).to.deep.equal({ success: 3, failure: 1, aborted: 1, unknown: 1 });
    expect(rep.failed.calls).to.equal(2);
    expect(rep.failed.usage.fields.inputTokens).to.deep.equal({ sum: 30, knownCalls: 1, unknownCalls: 1 });
    expect(rep.byAttribution.main.calls).to.equal(3);
    expect(rep.byAttribution.child.calls).to.equal(2);
    expect(rep.byAttribution.query.calls).to.equal(0);
    expect(rep.byAttribution.unknown.calls).to.equal(1);
    expect(rep.usage).to.deep.include({ callsWithUsage: 4, callsWithoutUsage: 2 });
    expect(rep.usage.fields.inputTokens).to.deep.equal({ sum: 30 + 31 + 500 + 12, knownCalls: 4, unknownCalls: 2 });
    expect(rep.usage.fields.totalTokens).to.deep.equal({ sum: 33, knownCalls: 1, unknownCalls: 5 });
    expect(rep.usage.fields.cacheReadTokens).to.deep.equal({ sum: 64, knownCalls: 1, unknownCalls: 5 });
    expect(rep.usage.fields.cacheWriteTokens).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: 6 });
    expect(rep.usage.fields.reasoningTokens).to.deep.equal({ sum: 7, knownCalls: 1, unknownCalls: 5 });
    expect(rep.billing).to.deep.equal({ status: 'unknown' });
    expect(rep.diagnostics).to.deep.equal({ conflictingCallIds: [] });
    // Canonical JSON: sorted keys, two-space indent.
    expect(r.stdout).to.equal(`${JSON.stringify(sortDeep(out), null, 2)}\n`);
  });

  it('the same session read from several files (and a file named twice) counts each call once', async () => {
    const copy = join(tmp.dir, 'copy', 'session.jsonl.zstd');
    await writeFileDeep(copy, await multiFrame(text(mainLog()), 2));
    const prefix = join(tmp.dir, 'prefix', 'session.jsonl');
    const short = mainLog();
    short.events = short.events.slice(0, 5);
    await writeFileDeep(prefix, text(short));
    const once = await readUsageInputs([mainFile]);
    const many = await readUsageInputs([mainFile, copy, prefix, mainFile]);
    expect(many.files).to.deep.equal([mainFile, copy, prefix]);
    expect(many.report).to.deep.equal(once.report);
  });

  it('a different copy of one call in another file of the same session becomes unknown and is listed in diagnostics', async () => {
    const edited = mainLog();
    (edited.events[4]!.data as { stream: unknown }).stream = stream(40, 'tool-calls');
    const other = join(tmp.dir, 'edited', 'session.jsonl');
    await writeFileDeep(other, text(edited));
    const { report } = await readUsageInputs([mainFile, other]);
    expect(report.calls).to.equal(4);
    expect(report.diagnostics.conflictingCallIds).to.deep.equal(['sess-main:4']);
    expect(report.usage.fields.inputTokens).to.deep.equal({ sum: 530, knownCalls: 2, unknownCalls: 2 });
    expect(report.outcomes.success).to.equal(2); // the conflicting copies agree on the outcome
  });

  it('an identical repeated line is read once; a header inheritedEventCount must agree with the end-seed marker', async () => {
    const log = childLog();
    const f = join(tmp.dir, 'dup', 'session.jsonl');
    await writeFileDeep(f, text({ header: { ...log.header }, events: [...log.events.slice(0, 5), log.events[4]!, log.events[5]!] }));
    expect((await readUsageInput(f)).records).to.have.length(2);
    const g = join(tmp.dir, 'stated', 'session.jsonl');
    await writeFileDeep(g, text({ header: { ...log.header, inheritedEventCount: 2 }, events: log.events }));
    expect((await readUsageInput(g)).records).to.have.length(2);
    const h = join(tmp.dir, 'stated-bad', 'session.jsonl');
    await writeFileDeep(h, text({ header: { ...log.header, inheritedEventCount: 1 }, events: log.events }));
    await expectInputError(h, 1, /disagrees with the inherited end-seed marker at seq 2/);
  });

  describe('bad files exit 2, naming the file and the line', () => {
    const cases: { name: string; file: string; content: () => Promise<string | Buffer>; line: number | null; message: RegExp }[] = [
      { name: 'a line that is not JSON', file: 'a.jsonl', content: async () => `${text(mainLog())}{"type":\n`, line: 12, message: /is not JSON/ },
      {
        name: 'a seq gap',
        file: 'b.jsonl',
        content: async () => text({ header: mainLog().header, events: [event(0, 'turn/start', {}), event(2, 'turn/end', {})] }),
        line: 3,
        message: /seq gap: expected seq 1, got 2/,
      },
      {
        name: 'a repeated seq with other content',
        file: 'c.jsonl',
        content: async () => text({ header: mainLog().header, events: [event(0, 'turn/start', {}), event(0, 'turn/start', { turn: 2 })] }),
        line: 3,
        message: /seq 0 appears twice/,
      },
      {
        name: 'an invalid assistant stream',
        file: 'd.jsonl',
        content: async () =>
          text({
            header: mainLog().header,
            events: [
              event(0, 'turn/start', {}),
              event(1, 'assistant/attempt', { stream: [{ type: 'text-chunks', time0: 1, index: 0, dt: [1], texts: ['a'] }] }),
            ],
          }),
        line: 3,
        message: /assistant\/attempt at seq 1: text-chunks dt length/,
      },
      {
        name: 'an event row without seq',
        file: 'e.jsonl',
        content: async () => `${JSON.stringify(mainLog().header)}\n{"type":"turn/start","time":1,"data":{}}\n`,
        line: 2,
        message: /seq must be a non-negative integer/,
      },
      {
        name: 'another format version',
        file: 'f.jsonl',
        content: async () => `${JSON.stringify({ ...mainLog().header, version: 2 })}\n`,
        line: 1,
        message: /version 2 is not supported/,
      },
      {
        name: 'a seeded session without the end-seed marker',
        file: 'g.jsonl',
        content: async () => text({ header: { ...mainLog().header, isSeeded: true }, events: [event(0, 'turn/start', {})] }),
        line: 1,
        message: /lacks an inherited session\/end-seed marker/,
      },
      {
        name: 'a first line of neither format',
        file: 'h.jsonl',
        content: async () => '{"hello":"world"}\n',
        line: 1,
        message: /neither an evalog export event nor a DeepSeek Harness session header/,
      },
      { name: 'an empty file', file: 'i.jsonl', content: async () => '\n', line: null, message: /is empty/ },
      {
        name: 'truncated zstd',
        file: 'j.jsonl.zstd',
        content: async () => (await multiFrame(text(mainLog()), 2)).subarray(0, -3),
        line: null,
        message: /invalid or truncated Zstandard/,
      },
      {
        name: 'zstd whose text does not end in a newline',
        file: 'k.jsonl.zstd',
        content: async () => compressFrame(Buffer.from(text(mainLog()).slice(0, -1))),
        line: null,
        message: /does not end in a newline/,
      },
      { name: 'plain text named .zstd', file: 'l.jsonl.zstd', content: async () => text(mainLog()), line: null, message: /not Zstandard data/ },
      {
        name: 'a file that is not a usage input by name',
        file: 'm.json',
        content: async () => text(mainLog()),
        line: null,
        message: /expected a \.jsonl, \.jsonl\.zst, \.jsonl\.zstd file/,
      },
      {
        name: 'invalid UTF-8',
        file: 'n.jsonl',
        content: async () => Buffer.concat([Buffer.from(text(mainLog())), Buffer.from([0xff, 0x0a])]),
        line: null,
        message: /not UTF-8/,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const f = join(tmp.dir, 'bad', c.file);
        await writeFileDeep(f, await c.content());
        await expectInputError(f, c.line, c.message);
        const r = await runIn(usageCommand, [mainFile, f], tmp.dir);
        expect(r.code).to.equal(EXIT.badInput);
        expect(r.stdout).to.equal('');
        expect(r.stderr).to.include(f).and.match(c.message);
        if (c.line !== null) expect(r.stderr).to.include(`line ${c.line}:`);
      });
    }

    it('a missing file, no file at all, and an empty --input', async () => {
      for (const args of [['nope.jsonl'], [], ['--input', ''], ['--bogus', 'x.jsonl']]) {
        const r = await runIn(usageCommand, args, tmp.dir);
        expect(r.code, args.join(' ')).to.equal(EXIT.badInput);
        expect(r.stderr).to.match(/evalog usage: /);
      }
    });
  });

  it('reads only the files named: a session log beside them is not picked up', async () => {
    await copyFile(mainFile, join(tmp.dir, 'child', 'session.jsonl'));
    const r = await runIn(usageCommand, [childFile], tmp.dir);
    expect(JSON.parse(r.stdout).report.calls).to.equal(2);
    expect(await readFile(mainFile, 'utf8')).to.equal(text(mainLog()));
  });
});

async function expectInputError(file: string, line: number | null, message: RegExp): Promise<void> {
  try {
    await readUsageInput(file);
  } catch (err) {
    expect(err).to.be.instanceOf(UsageInputError);
    expect((err as UsageInputError).file).to.equal(file);
    expect((err as UsageInputError).line).to.equal(line);
    expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail(`${file} was read without error`);
}

async function writeFileDeep(path: string, content: string | Buffer): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

/** Runs a command in-process as runCli does: an InputError is printed and gives exit code 2. */
async function runIn(command: Command, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: CliIO = { stdout, stderr, env: {}, cwd };
  let code: number;
  try {
    code = await command.run(args, io);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    stderr.write(`${e.message}\n`);
    code = EXIT.badInput;
  }
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out, stderr: err };
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
    );
  return v;
}
