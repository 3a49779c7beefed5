// The inputs of memory-eviction's steps (protocol, dataset) from flags; apart from the command so
// replay, resume and the QA steps share them without importing one another.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCases } from '../suites/memory-eviction/cases.js';
import { loadDataset } from '../suites/memory-eviction/dataset.js';
import { loadProtocol, type Protocol } from '../suites/memory-eviction/protocol.js';
import { memoryEvictionQaSuite } from '../suites/memory-eviction/qa-suite.js';
import type { DefinedSuite } from '../harness/suite/index.js';
import { InputError, type CliIO } from './io.js';

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

/** For replay and resume: binds memory-eviction to its protocol and dataset from the flags; other suites need nothing. */
export function suiteBinder(values: { config?: string; protocol?: string; dataset?: string }, io: CliIO) {
  return (name: string): DefinedSuite | undefined => {
    if (name !== 'memory-eviction') return undefined;
    const protocol = protocolFrom(values, io);
    const { dataset, cases } = datasetFrom('replay', protocol, values, io);
    return memoryEvictionQaSuite({ protocol, cases, datasetSha256: dataset.sha256 });
  };
}
