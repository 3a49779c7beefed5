// `evalog memory-eviction run-policy`: the deterministic selection as a run of compute jobs, its
// files (policy.raw.jsonl, summary.json, run.json) folded from its log.
import { outputHooksOf } from '../app/index.js';
import { changedArtifacts } from '../suites/memory-eviction/step-config.js';
import { memoryEvictionPolicySuite, policyStepConfig, type PolicyContext } from '../suites/memory-eviction/policy-suite.js';
import { parseCommandArgs } from './args.js';
import { finishRun } from './finish-run.js';
import { InputError, type CliIO } from './io.js';
import { datasetFrom, protocolFrom, protocolOptions } from './memory-eviction-inputs.js';
import { openStepLog, prepareStepFolder, runStep, stepRunOptions, stepWorkers } from './memory-eviction-run.js';
import { runFolder } from './run-folder.js';
import { outputMode } from './output-flags.js';

const COMMAND = 'memory-eviction run-policy';
const LOCAL_ONLY = '# Local-only data: the event log.\nlog/\n';

/** `evalog memory-eviction run-policy --out DIR`: a new run, or the resume of the run in DIR. */
export async function runPolicyCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(COMMAND, args, { ...protocolOptions, ...stepRunOptions, out: { type: 'string' } }, false);
  if (!values.out) throw new InputError(`evalog ${COMMAND}: give --out DIR (a new folder, or the folder of the run to resume)`);
  const { url, workers } = stepWorkers(COMMAND, values, io);
  const output = outputMode(COMMAND, values, io);
  const protocol = protocolFrom(values, io, COMMAND);
  const { dataset, cases } = datasetFrom('run-policy', protocol, values, io);
  const ctx: PolicyContext = { protocol, cases, datasetSha256: dataset.sha256 };
  const suite = memoryEvictionPolicySuite(ctx);
  const folder = runFolder(COMMAND, values.out, io.cwd);
  const target = await openStepLog(folder.root, folder.runId, url, workers, io);
  try {
    await prepareStepFolder(folder.dir, !target.recorded, LOCAL_ONLY);
    const now = policyStepConfig(ctx).artifacts;
    const status = await runStep(target, {
      command: COMMAND,
      suite,
      endpoint: { scripted: true },
      lease: values.lease,
      dir: folder.dir,
      changed: (recorded) => changedArtifacts(recorded.artifacts as Record<string, string> | undefined, now),
      io,
      output,
    });
    return await finishRun(target.log, folder.runId, folder.dir, status, io, `evalog ${COMMAND} ${args.join(' ')}`, outputHooksOf(suite), output);
  } finally {
    await target.log.close();
  }
}
