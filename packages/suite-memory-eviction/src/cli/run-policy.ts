// `evalog memory-eviction run-policy`: the deterministic selection as a run of compute jobs, its
// files (policy.raw.jsonl, summary.json, run.json) folded from its log.
import type { CliIO, CliKit } from 'evalog';
import { InputError, parseCommandArgs } from 'evalog';
import { memoryEvictionPolicySuite, type PolicyContext, policyStepConfig } from '../policy-suite.js';
import { changedArtifacts } from '../step-config.js';
import { datasetFrom, protocolFrom, protocolOptions } from './inputs.js';

const COMMAND = 'memory-eviction run-policy';
const LOCAL_ONLY = '# Local-only data: the event log.\nlog/\n';

/** `evalog memory-eviction run-policy --out DIR`: a new run, or the resume of the run in DIR. */
export async function runPolicyCommand(args: string[], io: CliIO, kit: CliKit): Promise<number> {
  const { values } = parseCommandArgs(COMMAND, args, { ...protocolOptions, ...kit.stepRunOptions, out: { type: 'string' } }, false);
  if (!values.out) throw new InputError(`evalog ${COMMAND}: give --out DIR (a new folder, or the folder of the run to resume)`);
  const { url, workers } = kit.stepWorkers(COMMAND, values, io);
  const output = kit.outputMode(COMMAND, values, io);
  const protocol = protocolFrom(values, io, COMMAND);
  const { dataset, cases } = datasetFrom('run-policy', protocol, values, io);
  const ctx: PolicyContext = { protocol, cases, datasetSha256: dataset.sha256 };
  const suite = memoryEvictionPolicySuite(ctx);
  const folder = kit.runFolder(COMMAND, values.out, io.cwd);
  const target = await kit.openStepLog(folder.root, folder.runId, url, workers, io);
  try {
    await kit.prepareStepFolder(folder.dir, !target.recorded, LOCAL_ONLY);
    const now = policyStepConfig(ctx).artifacts;
    const status = await kit.runStep(target, {
      command: COMMAND,
      suite,
      endpoint: { scripted: true },
      lease: values.lease,
      dir: folder.dir,
      changed: (recorded) => changedArtifacts(recorded.artifacts as Record<string, string> | undefined, now),
      io,
      output,
    });
    return await kit.finishRun(target.log, folder.runId, folder.dir, status, io, `evalog ${COMMAND} ${args.join(' ')}`, kit.outputHooksOf(suite), output);
  } finally {
    await target.log.close();
  }
}
