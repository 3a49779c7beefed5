import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createOutputDir, jsonDocument, jsonLines, writeAtomic } from '../projections/writer.js';
import { collectProvenance } from '../harness/provenance.js';
import { systemClock } from '../core/clock.js';
import { buildCases } from '../suites/memory-eviction/cases.js';
import { loadDataset } from '../suites/memory-eviction/dataset.js';
import { runPolicy } from '../suites/memory-eviction/policy-run.js';
import { loadProtocol, officialCaseIds, type Protocol } from '../suites/memory-eviction/protocol.js';
import { parseCommandArgs } from './args.js';
import { memoryEvictionQaSuite } from '../suites/memory-eviction/qa-suite.js';
import type { Suite, SuiteConfigBase } from '../harness/suite/types.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';
import { gradeQaCommand, runQaCommand } from './memory-eviction-qa.js';
import { STATS_HELP, statsCommand } from './memory-eviction-stats.js';

const HELP = `Usage: evalog memory-eviction <step> [options]

The memory-eviction evaluation (confidence vs hybrid-v1 eviction over LongMemEval-derived pools):
  validate-contracts                 check the protocol files (no dataset needed)
  validate --dataset PATH            check the dataset against its pinned sha256 and build the cases
  run-policy --dataset PATH --out DIR  deterministic selection at every capacity: policy.raw.jsonl, summary.json, run.json
  run-qa --dataset PATH --out DIR    one answerer call per case × policy; rerun with the same --out to resume
  grade-qa <run-folder> --dataset PATH  verify every row and grade blind: qa.rows.jsonl, qa.summary.json, qa.stats.json
  stats <qa.rows.jsonl> --out DIR    recompute qa.stats.json and qa.summary.json from graded rows

Common options: --protocol DIR (the protocol folder, default manifests/memory-eviction/) and
--config PATH (a config instead of the folder's config.v1.json).
The dataset is never downloaded: --dataset PATH or LONGMEMEVAL_ORACLE_PATH names the local file.
`;

/** Options every step shares. */
export const protocolOptions = { config: { type: 'string' }, protocol: { type: 'string' }, dataset: { type: 'string' } } as const;

/** Loads the protocol: manifests/memory-eviction/ or --protocol DIR, with --config replacing its config. */
export function protocolFrom(values: { config?: string; protocol?: string }, io: CliIO): Protocol {
  const dir = values.protocol === undefined ? undefined : pathToFileURL(`${resolve(io.cwd, values.protocol)}/`);
  return loadProtocol(dir, values.config === undefined ? {} : { configPath: resolve(io.cwd, values.config) });
}

/** Loads the dataset named by --dataset or LONGMEMEVAL_ORACLE_PATH, checking the pinned hash first. */
export function datasetFrom(command: string, protocol: Protocol, values: { dataset?: string }, io: CliIO) {
  const path = values.dataset ?? io.env.LONGMEMEVAL_ORACLE_PATH;
  if (!path) throw new InputError(`evalog memory-eviction ${command}: give --dataset PATH (or set LONGMEMEVAL_ORACLE_PATH); it is never downloaded`);
  const dataset = loadDataset(resolve(io.cwd, path), protocol.config.dataset.sha256);
  return { dataset, cases: buildCases(protocol, dataset) };
}

async function validateContracts(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs('memory-eviction validate-contracts', args, { config: { type: 'string' }, protocol: { type: 'string' } }, false);
  const p = protocolFrom(values, io);
  io.stdout.write(`validated ${officialCaseIds(p).length} official and ${p.synthetic.cases.length} synthetic cases\n`);
  return EXIT.ok;
}

async function validate(args: string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs('memory-eviction validate', args, protocolOptions, false);
  const p = protocolFrom(values, io);
  const { dataset, cases } = datasetFrom('validate', p, values, io);
  io.stdout.write(`dataset sha256 ${dataset.sha256} matches; ${dataset.rows.length} rows; built ${cases.length} cases\n`);
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
    schema_version: 1, protocol_id: p.config.protocol_id, created_at: new Date(systemClock.now()).toISOString(),
    git: prov.git, dataset: p.config.dataset, artifacts: p.artifacts, evaluation_time: p.evaluationTime.toISOString(),
    policies: ['confidence', 'hybrid-v1'], capacities: p.config.pool.capacities,
  };
  await writeAtomic(join(out, 'policy.raw.jsonl'), jsonLines(rows));
  await writeAtomic(join(out, 'summary.json'), jsonDocument(summary));
  await writeAtomic(join(out, 'run.json'), jsonDocument(run));
  io.stdout.write(`wrote ${rows.length} policy rows, summary.json and run.json to ${out}\n`);
  return EXIT.ok;
}

/** For replay and resume: binds memory-eviction to its protocol and dataset from the flags; other suites need nothing. */
export function suiteBinder(values: { config?: string; protocol?: string; dataset?: string }, io: CliIO) {
  return (name: string): Suite<SuiteConfigBase, unknown> | undefined => {
    if (name !== 'memory-eviction') return undefined;
    const protocol = protocolFrom(values, io);
    const { dataset, cases } = datasetFrom('replay', protocol, values, io);
    return memoryEvictionQaSuite({ protocol, cases, datasetSha256: dataset.sha256 }) as unknown as Suite<SuiteConfigBase, unknown>;
  };
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
    if (!step || step === '--help' || step === '-h') return void io.stdout.write(HELP), step ? EXIT.ok : EXIT.badInput;
    const run = STEPS[step];
    if (!run) throw new InputError(`evalog memory-eviction: unknown step ${JSON.stringify(step)} (${Object.keys(STEPS).join(', ')})`);
    if (rest.includes('--help') || rest.includes('-h')) return void io.stdout.write(step === 'stats' ? STATS_HELP : HELP), EXIT.ok;
    return run(rest, io);
  },
};
