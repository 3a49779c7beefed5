import { join, resolve } from 'node:path';
import { createOutputDir, jsonDocument, jsonLines, writeAtomic } from '../projections/writer.js';
import { collectProvenance } from '../harness/provenance.js';
import { systemClock } from '../core/clock.js';
import { runPolicy } from '../suites/memory-eviction/policy-run.js';
import { officialCaseIds } from '../suites/memory-eviction/protocol.js';
import { parseCommandArgs } from './args.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';
import { gradeQaCommand, runQaCommand } from './memory-eviction-qa.js';
import { STATS_HELP, statsCommand } from './memory-eviction-stats.js';
import { datasetFrom, PROTOCOL_HELP, protocolFields, protocolFrom, protocolOptions, statusOf, statusSuffix } from './memory-eviction-inputs.js';

const HELP = `Usage: evalog memory-eviction <step> [options]

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

async function runPolicyStep(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs('memory-eviction run-policy', args, { ...protocolOptions, out: { type: 'string' } }, false);
  if (!values.out) throw new InputError('evalog memory-eviction run-policy: give --out DIR (a new folder)');
  const p = protocolFrom(values, io);
  const { cases } = datasetFrom('run-policy', p, values, io);
  const out = resolve(io.cwd, values.out);
  const { rows, summary } = runPolicy(cases, p.config);
  await createOutputDir(out);
  const prov = collectProvenance();
  const run = {
    schema_version: 1,
    protocol_id: p.config.protocol_id,
    created_at: new Date(systemClock.now()).toISOString(),
    git: prov.git,
    dataset: p.config.dataset,
    artifacts: p.artifacts,
    evaluation_time: p.evaluationTime.toISOString(),
    policies: ['confidence', 'hybrid-v1'],
    capacities: p.config.pool.capacities,
    ...protocolFields(p),
  };
  await writeAtomic(join(out, 'policy.raw.jsonl'), jsonLines(rows));
  await writeAtomic(join(out, 'summary.json'), jsonDocument({ ...summary, protocol_status: statusOf(p) }));
  await writeAtomic(join(out, 'run.json'), jsonDocument(run));
  io.stdout.write(`wrote ${rows.length} policy rows, summary.json and run.json to ${out}${statusSuffix(p)}\n`);
  return EXIT.ok;
}

const STEPS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  'validate-contracts': validateContracts,
  validate,
  'run-policy': runPolicyStep,
  'run-qa': runQaCommand,
  'grade-qa': gradeQaCommand,
  stats: statsCommand,
};

/** `evalog memory-eviction <step>`. */
export const memoryEvictionCommand: Command = {
  name: 'memory-eviction',
  summary: 'the memory-eviction evaluation: validate, run-policy, run-qa, grade-qa, stats',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const [step, ...rest] = args;
    if (!step || step === '--help' || step === '-h') {
      io.stdout.write(HELP);
      return step ? EXIT.ok : EXIT.badInput;
    }
    const run = STEPS[step];
    if (!run) throw new InputError(`evalog memory-eviction: unknown step ${JSON.stringify(step)} (${Object.keys(STEPS).join(', ')})`);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(step === 'stats' ? STATS_HELP : HELP);
      return EXIT.ok;
    }
    return run(rest, io);
  },
};
