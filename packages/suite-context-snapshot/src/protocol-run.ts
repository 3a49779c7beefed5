// A protocol-folder run of context-snapshot: the folder read once when the run is made (its
// hashes, cases and settings become the config), then read again by every process that runs its
// jobs (the first run, resume, workers), which refuses bytes other than the recorded ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseSpec } from 'evalog';
import { UserError } from 'evalog';
import { protocolStatus, type ContextSnapshotConfig } from './config.js';
import { loadContextSnapshotProtocol, sha256Hex, type ContextSnapshotProtocol } from './protocol/index.js';
import type { ProtocolTask } from './protocol-prompts.js';

/** A protocol file differs from the bytes the run recorded (or is gone): the run cannot go on with it. */
export class ProtocolChangedError extends UserError {
  override name = 'ProtocolChangedError';
  constructor(
    readonly file: string,
    readonly recorded: string,
    readonly actual: string | null,
  ) {
    super(
      actual === null
        ? `context-snapshot protocol: ${file} is missing or unreadable; the run recorded sha256 ${recorded}`
        : `context-snapshot protocol: ${file} changed since the run recorded it: sha256 ${actual}, recorded ${recorded}`,
    );
  }
}

/** What a protocol folder sets in the config: where it is, its hashes and cases, and the run settings of its config.json. */
export function protocolOverrides(p: ContextSnapshotProtocol, allowUnpinned: boolean): Record<string, unknown> {
  const c = p.config;
  return {
    protocol: p.id,
    protocolDir: p.source,
    allowUnpinned,
    protocolFiles: p.files.map((f) => ({ file: f.file, sha256: f.sha256, pinned: f.pinned })),
    protocolCases: Object.fromEntries(p.cases.map((k) => [k.name, k.kind])),
    model: { temperature: c.temperature, maxTokens: c.max_tokens, reasoningEffort: c.reasoning_effort },
    seed: c.seed,
    orderSeed: c.order_seed,
    concurrency: c.concurrency,
    contextWindow: c.context_window,
    // max_retries is 0 (the loader refuses anything else): one attempt per call.
    provider: { timeoutMs: c.http_timeout_seconds * 1000, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0 },
    // The executor's limit is max_graph_steps LangGraph steps (graphSteps); a turn takes several steps,
    // so a turn cap of as many turns never stops the worker first.
    worker: { turnCap: Math.min(c.max_graph_steps, 1000), graphSteps: c.max_graph_steps, timeLimitMs: c.worker_timeout_seconds * 1000 },
  };
}

/**
 * The recorded protocol folder, read again: each file is hashed first and refused when its bytes
 * are not the recorded ones (before any of its Python runs), then the folder is loaded as the run
 * first loaded it. So a resume or a worker never runs a protocol other than the one the run started with.
 */
export function loadRecordedProtocol(config: ContextSnapshotConfig): ContextSnapshotProtocol {
  const dir = config.protocolDir!;
  for (const recorded of config.protocolFiles!) {
    const path = join(dir, recorded.file);
    let actual: string | null;
    try {
      actual = sha256Hex(readFileSync(path));
    } catch {
      actual = null;
    }
    if (actual !== recorded.sha256) throw new ProtocolChangedError(path, recorded.sha256, actual);
  }
  // The same bytes give the same id, cases and prompts the run recorded.
  return loadContextSnapshotProtocol(dir, { allowUnpinned: config.allowUnpinned });
}

/** The cases of a loaded protocol, as the suite's jobs use them (case ids are the protocol's names). */
export function protocolTasks(p: ContextSnapshotProtocol): CaseSpec<ProtocolTask>[] {
  return p.cases.map((c) => ({ id: c.name, data: { variant: 'protocol', case: c, prompts: p.prompts } }));
}

/** The run's provenance entry of its protocol: id, source, status and every file's hash with its pin. */
export function protocolProvenance(config: ContextSnapshotConfig): Record<string, unknown> {
  const files = config.protocolFiles;
  return {
    context_snapshot_protocol: {
      id: config.protocol,
      source: config.protocolDir ?? 'bundled (manifests/context-snapshot/)',
      status: protocolStatus(config),
      ...(files === null ? {} : { files: Object.fromEntries(files.map((f) => [f.file, { sha256: f.sha256, pinned: f.pinned }])) }),
    },
  };
}

/** The files whose bytes are not the published ones. */
export const unpinnedFiles = (p: ContextSnapshotProtocol): string[] => p.files.filter((f) => f.sha256 !== f.pinned).map((f) => f.file);
