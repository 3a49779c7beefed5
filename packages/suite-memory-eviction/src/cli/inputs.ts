// The inputs of memory-eviction's steps (protocol, dataset) from flags; apart from the command so
// the binding of recorded runs (resume, retry, replay, worker) and the steps share them.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CliIO, DefinedSuite, RunBinding } from 'evalog';
import { InputError } from 'evalog';
import { buildCases } from '../cases.js';
import { loadDataset } from '../dataset.js';
import { GRADE_SUITE, memoryEvictionGradeSuite } from '../grade-suite.js';
import { memoryEvictionPolicySuite, POLICY_SUITE } from '../policy-suite.js';
import { loadProtocol, type Protocol, type ProtocolStatus, protocolStatus } from '../protocol.js';
import { loadProtocolDir } from '../protocol-dir.js';
import { memoryEvictionQaSuite } from '../qa-suite.js';

/**
 * Options every step shares. Two flags, two layouts: `--protocol DIR` is a folder of evalog's own
 * offline variant (config.v1.json, official.v1.json, synthetic.v1.json, prompts/), `--protocol-dir
 * DIR` a copy of upstream's deermem_eviction/ folder, pinned to the published hashes unless
 * `--allow-unpinned`. They stay apart so that a flag alone says which kind of protocol ran.
 */
export const protocolOptions = {
  config: { type: 'string' },
  protocol: { type: 'string' },
  'protocol-dir': { type: 'string' },
  'allow-unpinned': { type: 'boolean' },
  dataset: { type: 'string' },
} as const;

/** The protocol flags' values. */
export interface ProtocolFlags {
  config?: string;
  protocol?: string;
  'protocol-dir'?: string;
  'allow-unpinned'?: boolean;
}

/** Help lines for the protocol flags. */
export const PROTOCOL_HELP = `Protocol (default: evalog's own offline variant, the study's bundled manifests/, id evalog-deermem-offline-v1):
  --protocol-dir DIR   a deermem_eviction/ folder of a deer-flow checkout (configs/, manifests/,
                       prompts/); its four files must have the published protocol's sha256
  --allow-unpinned     run a --protocol-dir folder whose files differ (recorded and labelled
                       "unpinned protocol")
  --protocol DIR       a folder in evalog's own layout (config.v1.json, official.v1.json, ...)
  --config PATH        a config instead of that folder's config.v1.json (not with --protocol-dir)`;

/** Loads the protocol: evalog's bundled variant, --protocol DIR (its layout) or --protocol-dir DIR (upstream's, pinned). */
export function protocolFrom(values: ProtocolFlags, io: CliIO, command = 'memory-eviction'): Protocol {
  const dir = values['protocol-dir'];
  if (dir !== undefined) {
    if (values.protocol !== undefined) throw new InputError(`evalog ${command}: give --protocol-dir or --protocol, not both`);
    if (values.config !== undefined)
      throw new InputError(`evalog ${command}: --config does not apply to --protocol-dir (its config is configs/pr4789-reproduction-v1.yaml)`);
    return loadProtocolDir(resolve(io.cwd, dir), { allowUnpinned: values['allow-unpinned'] === true });
  }
  if (values['allow-unpinned']) throw new InputError(`evalog ${command}: --allow-unpinned applies to --protocol-dir only`);
  const bundled = values.protocol === undefined ? undefined : pathToFileURL(`${resolve(io.cwd, values.protocol)}/`);
  return loadProtocol(bundled, values.config === undefined ? {} : { configPath: resolve(io.cwd, values.config) });
}

/** What a step's output says of its protocol (`protocol_status` in its JSON files, a suffix on its lines). */
export function statusOf(protocol: Protocol): ProtocolStatus {
  return protocolStatus(protocol.source);
}

/** The suffix of a step's stdout and stderr lines: only a protocol that is not the published one by hash is named. */
export function statusSuffix(protocol: Protocol): string {
  return protocol.source.pinned ? '' : ` (${statusOf(protocol)})`;
}

/** What a step's run.json records of its protocol: its status, folder, layout and every file's path and sha256. */
export function protocolFields(protocol: Protocol) {
  const { dir, ...rest } = protocol.source;
  return { protocol_status: statusOf(protocol), protocol: { source: dir, ...rest } };
}

/** Loads the dataset named by --dataset or LONGMEMEVAL_ORACLE_PATH, checking the pinned hash first. */
export function datasetFrom(command: string, protocol: Protocol, values: { dataset?: string }, io: CliIO) {
  const path = values.dataset ?? io.env.LONGMEMEVAL_ORACLE_PATH;
  if (!path) throw new InputError(`evalog memory-eviction ${command}: give --dataset PATH (or set LONGMEMEVAL_ORACLE_PATH); it is never downloaded`);
  const dataset = loadDataset(resolve(io.cwd, path), protocol.config.dataset.sha256);
  return { dataset, cases: buildCases(protocol, dataset) };
}

/** The memory-eviction suites a recorded run may name: run-qa's, run-policy's and grade-qa's. */
const BOUND = new Set(['memory-eviction', POLICY_SUITE, GRADE_SUITE]);

/**
 * For replay, resume and workers: binds a memory-eviction suite to its protocol and dataset from the
 * flags (a grade run's answers are in its recorded plan); other suites need nothing (undefined).
 */
export function suiteBinder(values: ProtocolFlags & { dataset?: string }, io: CliIO) {
  return (name: string): DefinedSuite | undefined => {
    if (!BOUND.has(name)) return undefined;
    const protocol = protocolFrom(values, io);
    const { dataset, cases } = datasetFrom('replay', protocol, values, io);
    const ctx = { protocol, cases, datasetSha256: dataset.sha256 };
    if (name === POLICY_SUITE) return memoryEvictionPolicySuite(ctx);
    if (name === GRADE_SUITE) return memoryEvictionGradeSuite({ ...ctx, answers: null });
    return memoryEvictionQaSuite(ctx);
  };
}

/** How resume, retry, replay and worker bind a recorded run of a memory-eviction step again. */
export const memoryEvictionBinding: RunBinding = {
  options: protocolOptions,
  help: 'A memory-eviction run also needs its inputs: --dataset PATH [--protocol DIR] [--config PATH].',
  workerHelp: `Runs of memory-eviction steps (run-policy, run-qa, grade-qa) need their inputs here too:
--dataset PATH [--protocol DIR] [--config PATH]; without them, or with other files than the run
recorded, this worker leaves their jobs to another.`,
  bind: (values, io) => suiteBinder(values as ProtocolFlags & { dataset?: string }, io),
};
