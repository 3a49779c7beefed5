// `evalog memory-eviction <step>`: the study's own command, its steps checks of the protocol and
// dataset, the three steps that are runs (run-policy, run-qa, grade-qa) and the offline stats.
import type { CliIO, CliKit, Command, Steps } from 'evalog';
import { EXIT, parseCommandArgs, runSteps } from 'evalog';
import { officialCaseIds } from '../protocol.js';
import { gradeQaCommand } from './grade-qa.js';
import { datasetFrom, PROTOCOL_HELP, protocolFrom, protocolOptions, statusOf, statusSuffix } from './inputs.js';
import { runPolicyCommand } from './run-policy.js';
import { runQaCommand } from './run-qa.js';
import { STATS_HELP, statsCommand } from './stats.js';

const help = (stepRunHelp: string) => `Usage: evalog memory-eviction <step> [options]

The memory-eviction evaluation (confidence vs hybrid-v1 eviction over LongMemEval-derived pools):
  validate-contracts                 check the protocol files (no dataset needed); prints the protocol id and file hashes
  validate --dataset PATH            check the dataset against its pinned sha256 and build the cases
  run-policy --dataset PATH --out DIR  deterministic selection at every capacity: policy.raw.jsonl, summary.json, run.json
  run-qa --dataset PATH --out DIR    one answerer call per case × policy; rerun with the same --out to resume
                                     (needs the config's DEERMEM_EVAL_ANSWER_BASE_URL and _API_KEY, or --scripted)
  grade-qa <run-folder> --dataset PATH  verify every row and grade blind: qa.rows.jsonl, qa.summary.json, qa.stats.json
  stats <qa.rows.jsonl> --out DIR    recompute qa.stats.json and qa.summary.json from graded rows

${PROTOCOL_HELP}
The dataset is never downloaded: --dataset PATH or LONGMEMEVAL_ORACLE_PATH names the local file.

run-policy, run-qa and grade-qa are runs with an event log, like evalog run: rerun one with the
same arguments to resume it, evalog rebuild <folder> writes its files again from the log, and
evalog replay / resume / worker take --dataset (and the protocol flags) for them. grade-qa
records its grades in a run of its own, <run>-grade, in the run-qa folder (or beside it on NATS).
With --nats, --out names the folder of the files and its name is the run id; grade-qa then takes
the run-qa run's id, its files going to --out (default runs/<run id>).
${stepRunHelp}
`;

const ARTIFACT_LINES = [
  ['config_sha256', 'config'],
  ['official_manifest_sha256', 'official_manifest'],
  ['synthetic_manifest_sha256', 'synthetic_manifest'],
  ['answer_prompt_sha256', 'answer_prompt'],
] as const;

async function validateContracts(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(
    'memory-eviction validate-contracts',
    args,
    { config: { type: 'string' }, protocol: { type: 'string' }, 'protocol-dir': { type: 'string' }, 'allow-unpinned': { type: 'boolean' } },
    false,
  );
  const p = protocolFrom(values, io, 'memory-eviction validate-contracts');
  io.stdout.write(`validated ${officialCaseIds(p).length} official and ${p.synthetic.cases.length} synthetic cases\n`);
  io.stdout.write(`protocol ${p.config.protocol_id}: ${statusOf(p)} from ${p.source.dir}\n`);
  for (const [artifact, file] of ARTIFACT_LINES) io.stdout.write(`${artifact.padEnd(26)} ${p.artifacts[artifact]}  ${p.source.files[file].path}\n`);
  return EXIT.ok;
}

async function validate(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs('memory-eviction validate', args, protocolOptions, false);
  const p = protocolFrom(values, io);
  const { dataset, cases } = datasetFrom('validate', p, values, io);
  io.stdout.write(`dataset sha256 ${dataset.sha256} matches; ${dataset.rows.length} rows; built ${cases.length} cases${statusSuffix(p)}\n`);
  return EXIT.ok;
}

/** `evalog memory-eviction <step>`, its steps that are runs given the CLI's parts. */
export function memoryEvictionCommand(kit: CliKit): Command {
  const HELP = help(kit.stepRunHelp);
  const steps: Steps = {
    'validate-contracts': validateContracts,
    validate,
    'run-policy': (args, io) => runPolicyCommand(args, io, kit),
    'run-qa': (args, io) => runQaCommand(args, io, kit),
    'grade-qa': (args, io) => gradeQaCommand(args, io, kit),
    stats: statsCommand,
  };
  return {
    name: 'memory-eviction',
    summary: 'the memory-eviction evaluation: validate, run-policy, run-qa, grade-qa, stats',
    help: HELP,
    run: (args: string[], io: CliIO) => runSteps('memory-eviction', steps, (step) => (step === 'stats' ? STATS_HELP : HELP), args, io),
  };
}
