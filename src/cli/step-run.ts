// How a suite's step that is a run (a command of its own, e.g. a study's steps) starts or goes on:
// in the embedded log of its folder or on NATS JetStream (`--nats`), its jobs run here or by
// workers (`--workers`), a new run planned from the bound suite, a recorded one resumed after its
// inputs were found unchanged. Lent to the suite's commands through the CLI kit (kit.ts).
import { join } from 'node:path';
import { pluginVersions, scriptedPlayers, suiteNamed } from '../app/index.js';
import { systemClock } from '../core/clock.js';
import { executeRun, planRun } from '../harness/orchestration/launch.js';
import { loadRecording } from '../harness/orchestration/recording.js';
import { resumeRun } from '../harness/orchestration/replay-resume.js';
import type { StepLog, StepRunSettings, WorkersMode } from '../harness/suite/index.js';
import { FileEventLog } from '../log/file/index.js';
import type { StoredEvent } from '../events/index.js';
import { followDuring, LogLockedError } from '../log/index.js';
import type { JetStreamEventLog } from '../log/jetstream/index.js';
import { createOutputDir, exists, writeAtomic } from '../projections/writer.js';
import { InputError, type CliIO } from './io.js';
import { connectNats, NATS_HELP, natsOption, natsUrl, type RunTarget } from './log-target.js';
import { OUTPUT_HELP, OUTPUT_OPTIONS } from './output-flags.js';
import { ProgressReporter } from './progress.js';
import { startScaleOut, WORKERS_HELP, workersMode, workersOptions } from './scale-out.js';

/** The flags of a step that is a run: where its log is and who runs its jobs. */
export const stepRunOptions = { ...natsOption, ...workersOptions, ...OUTPUT_OPTIONS } as const;

/** Help lines for them. */
export const STEP_RUN_HELP = `${NATS_HELP}\n${WORKERS_HELP}\n${OUTPUT_HELP}`;

/** Who runs the jobs, parsed before anything is opened (`--workers` needs `--nats`). */
export function stepWorkers(command: string, values: { nats?: string; workers?: string }, io: CliIO): { url: string | null; workers: WorkersMode } {
  const url = natsUrl(values, io.env);
  return { url, workers: workersMode(command, values.workers, url !== null) };
}

/**
 * Opens the log of run `runId` whose embedded log lives under `root` (`root/<runId>/log/`), or the
 * NATS log at `url`; `recorded` says whether it holds the run already.
 */
export async function openStepLog(root: string, runId: string, url: string | null, workers: WorkersMode, io: CliIO): Promise<StepLog> {
  if (url) return stepLogOn(await connectNats(url, io.env), runId, workers);
  const recorded = await exists(join(root, runId, 'log', 'events.evlog'));
  const log = await FileEventLog.open({ root, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
  return { runId, log, nats: null, recorded, workers };
}

/** The step log of run `runId` on a NATS log already open (a grade run beside the run it grades). */
export async function stepLogOn(nats: JetStreamEventLog, runId: string, workers: WorkersMode): Promise<StepLog> {
  const recorded = (await nats.runs()).some((r) => r.runId === runId);
  return { runId, log: nats, nats, recorded, workers };
}

/** The log of run `runId` beside an open run: in its folder (embedded), or in the same NATS log. */
export async function stepLogBeside(beside: RunTarget, runId: string, workers: WorkersMode, io: CliIO): Promise<StepLog> {
  return beside.kind === 'nats' ? stepLogOn(beside.log as JetStreamEventLog, runId, workers) : openStepLog(beside.dir, runId, null, workers, io);
}

/** A new step folder: created (it must not exist) with a .gitignore that keeps the log local; an existing one is left as it is. */
export async function prepareStepFolder(dir: string, isNew: boolean, localOnly: string): Promise<void> {
  if (!isNew) return;
  await createOutputDir(dir);
  await writeAtomic(join(dir, '.gitignore'), localOnly);
}

/** Runs the step's run to its end or an interrupt: planned and started, or resumed from its log. */
export async function runStep(target: StepLog, o: StepRunSettings): Promise<'completed' | 'interrupted'> {
  const { log, runId } = target;
  const { io, suite, endpoint } = o;
  // No effect before this process holds the run's writer lock; the follow below needs the log's file.
  await log.claimWriter(runId).catch((err: unknown) => {
    throw err instanceof LogLockedError ? new InputError(`evalog ${o.command}: ${err.message}`, { cause: err }) : err;
  });
  const progress = new ProgressReporter(io.stderr, systemClock.now, undefined, o.output);
  const players = scriptedPlayers();
  const common = { endpoint, players, signal: io.signal };
  let recordedUpTo = 0;
  let completedBefore = false;
  if (target.recorded) {
    const rec = await loadRecording(log, runId);
    if (rec.started.suite !== suite.name)
      throw new InputError(`evalog ${o.command}: run ${runId} in ${o.dir} is a run of ${rec.started.suite}, not of ${suite.name}`);
    const changed = o.changed(rec.started.config);
    if (changed.length > 0) throw new InputError(`evalog ${o.command}: refusing to resume ${o.dir}: changed since it started: ${changed.join(', ')}`);
    recordedUpTo = rec.lastSeq;
    completedBefore = rec.completed;
    const started = rec.byScope.get('')?.find((e) => e.type === 'RunStarted');
    if (started?.type === 'RunStarted') await o.started?.(started);
    io.stderr.write(`evalog: resuming run ${runId}: recorded jobs are not run again${suite.shape === 'compute' ? '' : ', no completed call is sent again'}\n`);
  }
  const scale = await startScaleOut(o.command, target.workers, target.nats, runId, { name: suite.name, players, suite }, endpoint, io, o.lease);
  const body = async () => {
    try {
      if (target.recorded) {
        const suiteOf = (name: string) => (name === suite.name ? suite : suiteNamed(name));
        return await resumeRun(log, runId, { ...common, suiteOf, ...(scale.remote ? { remote: scale.remote } : {}) });
      }
      const prepared = await suite.configure(suite.defaults()).prepare();
      const started = planRun(prepared, endpoint, pluginVersions());
      return await executeRun({ ...common, suite: prepared, log, runId, started, ...(scale.remote ? { remote: scale.remote } : {}) });
    } finally {
      await scale.finish();
    }
  };
  let onStart: Promise<void> | null = target.recorded ? Promise.resolve() : null;
  const sink = (e: StoredEvent, recorded: boolean) => {
    if (e.type === 'RunStarted' && onStart === null) onStart = o.started?.(e) ?? Promise.resolve();
    progress.onEvent(e, recorded);
  };
  // A run complete already only has its files written: nothing to follow.
  const out = completedBefore ? await body() : await followDuring(log, runId, sink, recordedUpTo, body);
  await onStart;
  progress.finish();
  return out.status;
}
