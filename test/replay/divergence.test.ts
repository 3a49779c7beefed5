// Replay against edited copies of the smoke golden log, one edit per kind: a changed prompt (a new
// message blob and its reference), a changed schema version, check result, actor, a dropped
// event, and a changed usage figure. The copies are re-encoded through the file log's own writer
// into a temp folder (frames and CRCs are then valid), so only the edit differs from the golden.
import { expect } from 'chai';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CURRENT_VERSION, NewerSchemaError, type EvalogEvent, type StoredEvent } from '../../src/events/index.js';
import { FileEventLog, runLogPaths } from '../../src/log/file/index.js';
import type { EventLog } from '../../src/log/index.js';
import { rebuildOutputs } from '../../src/projections/outputs.js';
import { canonicalJson } from '../../src/core/canonical.js';
import { replayRun, type ReplayReport } from '../../src/harness/orchestration/replay-resume.js';
import { runEvalogHere, tempDir } from '../support/cli.js';
import { suiteNamed } from '../../src/app/index.js';

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));
const RUN = 'smoke';

type Edit = (events: StoredEvent[], blobs: FileEventLog) => Promise<StoredEvent[]> | StoredEvent[];

/** The middle event of a type (of a job's worker when `worker`), so edits land mid-log and mid-job. */
function middle(events: readonly StoredEvent[], pick: (e: StoredEvent) => boolean): StoredEvent {
  const hits = events.filter(pick);
  expect(hits.length, 'the golden log has such an event').to.be.greaterThan(0);
  return hits[Math.floor(hits.length / 2)]!;
}

const replace = (events: StoredEvent[], target: StoredEvent, by: StoredEvent | null) => events.flatMap((e) => (e === target ? (by ? [by] : []) : [e]));

/** An edited copy of the smoke golden run in `root/smoke/log`, with the golden blobs. */
async function editedCopy(root: string, edit: Edit): Promise<void> {
  const golden = await FileEventLog.open({ root: GOLDEN });
  const events: StoredEvent[] = [];
  try {
    for await (const e of golden.read(RUN)) events.push(e);
  } finally {
    await golden.close();
  }
  await cp(runLogPaths(GOLDEN, RUN).blobs, runLogPaths(root, RUN).blobs, { recursive: true });
  const log = await FileEventLog.open({ root });
  try {
    const edited = await edit(events, log);
    await log.append(edited.map(({ seq: _seq, ...e }) => e as EvalogEvent));
  } finally {
    await log.close();
  }
}

async function replayCopy(root: string, wrap: (log: FileEventLog) => EventLog = (l) => l): Promise<ReplayReport> {
  const log = await FileEventLog.open({ root });
  try {
    return await replayRun(wrap(log), RUN, suiteNamed);
  } finally {
    await log.close();
  }
}

/** What each edit changes, where the divergence must be, and which field it must name. */
interface Case {
  name: string;
  edit: Edit;
  /** The fields the report names (exactly, or at least these with `includes`). */
  fields: string[];
  includes?: boolean;
  /** Id of the logged event the divergence is reported at (set by the edit). */
  at?: string;
}

const cases: Case[] = [];
const add = (c: Case) => {
  cases.push(c);
  return c;
};

const prompt = add({
  name: 'a changed prompt: a ProviderCallRequested message rewritten (new blob, new reference)',
  fields: ['data.messages'],
  async edit(events, log) {
    const target = middle(events, (e) => e.type === 'ProviderCallRequested' && e.actor.endsWith('/worker'));
    if (target.type !== 'ProviderCallRequested') throw new Error('unreachable');
    const blobs = log.blobs(RUN);
    const last = target.data.messages.at(-1)!;
    const message = JSON.parse(Buffer.from(await blobs.get(last)).toString('utf8')) as { content: unknown };
    const changed = { ...message, content: `${String(message.content)} (edited)` };
    const ref = await blobs.put(Buffer.from(canonicalJson(changed)));
    expect(ref).to.not.equal(last);
    prompt.at = target.id;
    return replace(events, target, { ...target, data: { ...target.data, messages: [...target.data.messages.slice(0, -1), ref] } });
  },
});

const check = add({
  name: 'a flipped CheckEvaluated result',
  fields: ['data.passed'],
  edit(events) {
    const target = middle(events, (e) => e.type === 'CheckEvaluated');
    if (target.type !== 'CheckEvaluated') throw new Error('unreachable');
    check.at = target.id;
    return replace(events, target, { ...target, data: { ...target.data, passed: !target.data.passed } });
  },
});

const actor = add({
  name: 'a ToolCalled attributed to another actor',
  fields: ['actor'],
  edit(events) {
    const target = middle(events, (e) => e.type === 'ToolCalled');
    actor.at = target.id;
    return replace(events, target, { ...target, actor: target.actor.replace(/\/worker$/, '/parent') });
  },
});

const dropped = add({
  name: 'a dropped event (a ToolCalled in the middle of a job)',
  // The actors re-emit the dropped event where the log holds the next one: ids and types differ.
  fields: ['id', 'type'],
  includes: true,
  edit(events) {
    const target = middle(events, (e) => e.type === 'ToolCalled');
    const scope = events.filter((e) => e.jobId === target.jobId);
    dropped.at = scope[scope.indexOf(target) + 1]!.id;
    return replace(events, target, null);
  },
});

describe('replay names every kind of edit to a log (edited copies of the smoke golden log)', function () {
  this.timeout(120_000);
  const dirs: Record<string, Awaited<ReturnType<typeof tempDir>>> = {};
  before(async () => {
    for (const c of cases) {
      dirs[c.name] = await tempDir('evalog-edited-');
      await editedCopy(dirs[c.name]!.dir, c.edit);
    }
  });
  after(async () => {
    for (const d of Object.values(dirs)) await d.cleanup();
  });

  it('an unedited copy replays cleanly (the copying itself changes nothing)', async () => {
    const tmp = await tempDir('evalog-edited-');
    try {
      await editedCopy(tmp.dir, (events) => events);
      expect(await replayCopy(tmp.dir)).to.deep.include({ ok: true, incompleteJobs: 0 });
    } finally {
      await tmp.cleanup();
    }
  });

  for (const c of cases) {
    it(`${c.name}: replayRun reports it as the first divergence, naming ${c.fields.join(', ')}`, async () => {
      const report = await replayCopy(dirs[c.name]!.dir);
      expect(report.ok, JSON.stringify(report).slice(0, 300)).to.equal(false);
      if (report.ok) return;
      const d = report.divergence;
      expect(d.logged.id).to.equal(c.at);
      if (c.includes) expect(d.fields).to.include.members(c.fields);
      else expect(d.fields).to.deep.equal(c.fields);
    });

    it(`${c.name}: evalog replay exits 1 and prints the divergence`, async () => {
      const r = await runEvalogHere(['replay', join(dirs[c.name]!.dir, RUN)], { cwd: dirs[c.name]!.dir });
      expect(r.code, r.stdout + r.stderr).to.equal(1);
      expect(r.stdout).to.include(`divergence at seq `);
      expect(r.stdout).to.include(`(event ${c.at})`);
      for (const f of c.fields) expect(r.stdout).to.include(`\n  ${f}:\n    logged:  `);
    });
  }

  // A schema version is normalised on read (older ones upcast, newer ones refused), so a log file
  // cannot carry a wrong `v` into replay; the comparison still guards the recording it is given.
  it("a changed v reaching the recording is a divergence naming 'v'", async () => {
    const tmp = await tempDir('evalog-edited-');
    try {
      await editedCopy(tmp.dir, (events) => events);
      let target: string | undefined;
      const report = await replayCopy(tmp.dir, (log) =>
        withVersionEdited(log, (e) => {
          if (target === undefined && e.type === 'ToolCalled') target = e.id;
          return e.id === target ? ({ ...e, v: e.v + 1 } as StoredEvent) : e;
        }),
      );
      expect(report.ok).to.equal(false);
      if (report.ok) return;
      expect(report.divergence.logged.id).to.equal(target);
      expect(report.divergence.fields).to.deep.equal(['v']);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a v newer than this evalog in the log file: replay refuses the log (exit 2) naming the event type and version', async () => {
    const tmp = await tempDir('evalog-edited-');
    try {
      let target!: StoredEvent;
      await editedCopy(tmp.dir, (events) => {
        target = middle(events, (e) => e.type === 'ToolCalled');
        return replace(events, target, { ...target, v: CURRENT_VERSION.ToolCalled + 1 } as StoredEvent);
      });
      const log = await FileEventLog.open({ root: tmp.dir });
      try {
        const err = await replayRun(log, RUN, suiteNamed).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(NewerSchemaError);
      } finally {
        await log.close();
      }
      const r = await runEvalogHere(['replay', join(tmp.dir, RUN)], { cwd: tmp.dir });
      expect(r.code, r.stdout + r.stderr).to.equal(2);
      expect(r.stderr).to.include(`ToolCalled has schema version ${CURRENT_VERSION.ToolCalled + 1}`);
      expect(r.stderr).to.not.match(/\n\s+at /); // a message, not a stack trace
    } finally {
      await tmp.cleanup();
    }
  });

  // Replay serves each provider response from the log: a changed usage figure is a changed
  // recorded effect, which no actor re-derives. It is the rebuilt outputs that show it.
  it('a changed usage figure is a recorded effect: replay serves it as logged, and the rebuilt usage differs by exactly that figure', async () => {
    const tmp = await tempDir('evalog-edited-');
    try {
      await editedCopy(tmp.dir, (events) => {
        const target = middle(events, (e) => e.type === 'ProviderCallSucceeded' && e.data.usage !== null);
        if (target.type !== 'ProviderCallSucceeded') throw new Error('unreachable');
        const usage = target.data.usage!;
        return replace(events, target, { ...target, data: { ...target.data, usage: { ...usage, total: usage.total! + 1000 } } });
      });
      expect(await replayCopy(tmp.dir)).to.deep.include({ ok: true });
      const log = await FileEventLog.open({ root: tmp.dir });
      try {
        const rebuilt = (await rebuildOutputs(log, RUN, suiteNamed)).usage as { report: { usage: { fields: { totalTokens: { sum: number } } } } };
        const expected = JSON.parse(await readFile(join(GOLDEN, RUN, 'expected', 'usage.json'), 'utf8'));
        expect(rebuilt.report.usage.fields.totalTokens.sum).to.equal(expected.report.usage.fields.totalTokens.sum + 1000);
      } finally {
        await log.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});

/** The log with `edit` applied to each event as read (after decoding), so a recording can hold any `v`. */
function withVersionEdited(log: EventLog, edit: (e: StoredEvent) => StoredEvent): EventLog {
  return new Proxy(log, {
    get(target, prop, receiver) {
      if (prop === 'read') {
        return async function* (runId: string, options?: Parameters<EventLog['read']>[1]) {
          for await (const e of target.read(runId, options)) yield edit(e);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
