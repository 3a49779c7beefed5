// `evalog memory-eviction grade-qa <run>`: the answers of a run-qa run, verified against the
// protocol (all of them answered), graded blind in a grade run of their own (`<run>-grade`, in the
// run-qa folder or on NATS), whose log the three files are folded from.
import { join } from 'node:path';
import type { CliIO, CliKit } from 'evalog';
import { EXIT, exists, fold, InputError, loadRecording, outputFileNames, parseCommandArgs, RunId, rebuildOutputs, writeOutputs } from 'evalog';
import { GRADE_FILES } from '../grade-outputs.js';
import { type GradeContext, gradeRunId, gradeStepConfig, memoryEvictionGradeSuite } from '../grade-suite.js';
import { verifyQaRows } from '../qa-grade.js';
import { qaAnswerRows } from '../qa-report.js';
import { artifactsOf, changedArtifacts } from '../step-config.js';
import { datasetFrom, protocolFrom, protocolOptions, statusSuffix } from './inputs.js';

const COMMAND = 'memory-eviction grade-qa';

/** `evalog memory-eviction grade-qa <run-folder | run id with --nats>`: verify, grade blind, write the three files. */
export async function gradeQaCommand(args: string[], io: CliIO, kit: CliKit): Promise<number> {
  const { values, positionals } = parseCommandArgs(COMMAND, args, { ...protocolOptions, ...kit.stepRunOptions, out: { type: 'string' } });
  if (positionals.length !== 1) throw new InputError(`evalog ${COMMAND}: name the run folder of run-qa (with --nats, its run id)`);
  const { workers } = kit.stepWorkers(COMMAND, values, io);
  const output = kit.outputMode(COMMAND, values, io);
  // The run-qa log is only read here; the grades go to a run of their own.
  const qa = await kit.openRunTarget(COMMAND, positionals[0]!, values, io, true, true);
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
    const target = await kit.stepLogBeside(qa, gradeId, workers, io);
    try {
      const planned = gradeStepConfig(ctx, ctx.answers!);
      const status = await kit.runStep(target, {
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
      const outputs = await rebuildOutputs(target.log, gradeId, kit.outputHooksOf(suite));
      await writeOutputs(qa.dir, outputs);
      kit.printOutcome(io, outputs, `wrote ${outputFileNames(outputs).join(', ')} to ${qa.dir}${statusSuffix(protocol)}`, output);
      return kit.completedRunExit(outputs.outcome, io, null);
    } finally {
      if (target.log !== qa.log) await target.log.close();
    }
  } finally {
    await qa.log.close();
  }
}
