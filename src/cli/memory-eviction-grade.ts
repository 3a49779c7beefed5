// `evalog memory-eviction grade-qa <run>`: the answers of a run-qa run, verified against the
// protocol (all of them answered), graded blind in a grade run of their own (`<run>-grade`, in the
// run-qa folder or on NATS), whose log the three files are folded from.
import { join } from 'node:path';
import { outputHooksOf } from '../app/index.js';
import { RunId } from '../events/index.js';
import { loadRecording } from '../harness/recording.js';
import { fold } from '../projections/projection.js';
import { outputFileNames, rebuildOutputs, writeOutputs } from '../projections/outputs.js';
import { completedRunExit } from './finish-run.js';
import { exists } from '../projections/writer.js';
import { GRADE_FILES } from '../suites/memory-eviction/grade-outputs.js';
import { gradeRunId, gradeStepConfig, memoryEvictionGradeSuite, type GradeContext } from '../suites/memory-eviction/grade-suite.js';
import { verifyQaRows } from '../suites/memory-eviction/qa-grade.js';
import { qaAnswerRows } from '../suites/memory-eviction/qa-report.js';
import { changedArtifacts, artifactsOf } from '../suites/memory-eviction/step-config.js';
import { parseCommandArgs } from './args.js';
import { EXIT, InputError, type CliIO } from './io.js';
import { datasetFrom, protocolFrom, protocolOptions, statusSuffix } from './memory-eviction-inputs.js';
import { openStepLog, runStep, stepLogOn, stepRunOptions, stepWorkers } from './memory-eviction-run.js';
import type { JetStreamEventLog } from '../log/jetstream/index.js';
import { openRunTarget } from './log-target.js';
import { outputMode } from './output-flags.js';
import { printOutcome } from './print-outcome.js';

const COMMAND = 'memory-eviction grade-qa';

/** `evalog memory-eviction grade-qa <run-folder | run id with --nats>`: verify, grade blind, write the three files. */
export async function gradeQaCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(COMMAND, args, { ...protocolOptions, ...stepRunOptions, out: { type: 'string' } });
  if (positionals.length !== 1) throw new InputError(`evalog ${COMMAND}: name the run folder of run-qa (with --nats, its run id)`);
  const { workers } = stepWorkers(COMMAND, values, io);
  const output = outputMode(COMMAND, values, io);
  // The run-qa log is only read here; the grades go to a run of their own.
  const qa = await openRunTarget(COMMAND, positionals[0]!, values, io, true, true);
  try {
    for (const f of GRADE_FILES)
      if (await exists(join(qa.dir, f))) throw new InputError(`evalog ${COMMAND}: ${join(qa.dir, f)} exists already; grade-qa never overwrites`);
    const gradeId = gradeRunId(qa.runId);
    if (!RunId.safeParse(gradeId).success) throw new InputError(`evalog ${COMMAND}: run id ${qa.runId} is too long to name its grade run ${gradeId}`);
    const protocol = protocolFrom(values, io, COMMAND);
    const rec = await loadRecording(qa.log, qa.runId).catch((err: unknown) => {
      throw new InputError(`evalog ${COMMAND}: ${qa.dir} holds no run-qa run: ${(err as Error).message}`, { cause: err });
    });
    if (rec.started.suite !== 'memory-eviction') throw new InputError(`evalog ${COMMAND}: run ${qa.runId} is a run of ${rec.started.suite}, not of run-qa`);
    const { dataset, cases } = datasetFrom('grade-qa', protocol, values, io);
    const now = artifactsOf(protocol, dataset.sha256);
    const changed = changedArtifacts((rec.started.config as { artifacts?: Record<string, string> }).artifacts, now);
    if (changed.length > 0) throw new InputError(`evalog ${COMMAND}: the protocol changed since the run: ${changed.join(', ')}`);
    // The answer rows with their types, folded from the run-qa log as its report folds them; all of them answered and as the protocol has them.
    const rows = verifyQaRows(protocol, cases, await fold(qaAnswerRows, qa.log.read(qa.runId)));
    const ctx: GradeContext = { protocol, cases, datasetSha256: dataset.sha256, answers: { qaRunId: qa.runId, scripted: rec.started.model.scripted, rows } };
    const suite = memoryEvictionGradeSuite(ctx);
    // Embedded, the grade run's log lives in the run-qa folder (its .gitignore keeps every log/ local).
    // On NATS, the grade run is in the same log as the run-qa run it grades.
    const target = qa.kind === 'nats' ? await stepLogOn(qa.log as JetStreamEventLog, gradeId, workers) : await openStepLog(qa.dir, gradeId, null, workers, io);
    try {
      const planned = gradeStepConfig(ctx, ctx.answers!);
      const status = await runStep(target, {
        command: COMMAND,
        suite,
        endpoint: { scripted: true },
        lease: values.lease,
        dir: join(qa.dir, gradeId),
        // A grade run goes on only for the same answers, protocol and dataset.
        changed: (recorded) => [
          ...changedArtifacts(recorded.artifacts as Record<string, string> | undefined, now),
          ...(recorded.qaRunId === planned.qaRunId ? [] : ['qaRunId']),
        ],
        io,
        output,
      });
      if (status === 'interrupted') {
        io.stderr.write(`evalog: grading interrupted; its log is safe. Continue it with: evalog ${COMMAND} ${args.join(' ')}\n`);
        return EXIT.interrupted;
      }
      const outputs = await rebuildOutputs(target.log, gradeId, outputHooksOf(suite));
      await writeOutputs(qa.dir, outputs);
      printOutcome(io, outputs, `wrote ${outputFileNames(outputs).join(', ')} to ${qa.dir}${statusSuffix(protocol)}`, output);
      return completedRunExit(outputs.outcome, io, null);
    } finally {
      if (target.log !== qa.log) await target.log.close();
    }
  } finally {
    await qa.log.close();
  }
}
