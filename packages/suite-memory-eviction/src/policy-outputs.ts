// The files of a run-policy run, folded from its log: policy.raw.jsonl (cases in the protocol's
// order, then capacity, then policy), summary.json (grouped) and run.json (the step's provenance,
// its time the recorded start). Pure: the same events give the same bytes, in any interleaving.

import type { DataOf, StoredEvent, SuiteFilesOutput } from 'evalog';
import { defineOutputs, jsonDocument, jsonLines, UserError } from 'evalog';
import type { z } from 'zod';
import { type PolicyRow, type PolicySummary, summarizePolicyRows } from './policy-run.js';
import type { QaProtocolRecord } from './qa-config.js';
import { EVICTION_POLICIES } from './selector.js';
import { statusSuffixOf } from './step-config.js';

/** The files, in the order they are written. */
export const POLICY_FILES = ['policy.raw.jsonl', 'summary.json', 'run.json'] as const;

/** A run-policy run whose log does not hold every job's rows (unfinished): its files would be partial. */
export class PolicyRunIncompleteError extends UserError {
  override name = 'PolicyRunIncompleteError';
  constructor(runId: string, missing: number, total: number) {
    super(
      `run-policy run ${runId}: ${missing} of ${total} jobs have no recorded rows yet; resume it (evalog memory-eviction run-policy --out the same folder)`,
    );
  }
}

interface State {
  runId: string | null;
  started: (DataOf<'RunStarted'> & { at: string }) | null;
  /** Job id → position of its case in the protocol's order (the plan's facts). */
  caseIndex: Map<string, number>;
  /** Job id → its rows, one per capacity. */
  rows: Map<string, PolicyRow[]>;
}

/** The config fields the files read (the suite's schema validated them when the run started). */
interface RecordedConfig {
  protocolId: string;
  artifacts: Record<string, string>;
  protocol: z.infer<typeof QaProtocolRecord>;
  dataset: Record<string, unknown>;
  evaluationTime: string | number;
  capacities: number[];
}

function evolve(s: State, e: StoredEvent): State {
  if (e.type === 'RunStarted') {
    s.runId = e.runId;
    s.started = { ...e.data, at: e.at };
    for (const j of e.data.jobs) {
      const index = j.meta?.case_index;
      if (typeof index === 'number') s.caseIndex.set(j.jobId, index);
    }
  } else if (e.type === 'JobComputed' && e.jobId !== undefined) {
    s.rows.set(e.jobId, e.data.output.rows as PolicyRow[]);
  }
  return s;
}

/** The rows in the order `runPolicy` gives them: case, then capacity, then policy. */
function orderedRows(s: State, capacities: number): PolicyRow[] {
  const byCase = new Map<number, Map<string, PolicyRow[]>>();
  for (const job of s.started!.jobs) {
    const index = s.caseIndex.get(job.jobId)!;
    const policies = byCase.get(index) ?? new Map<string, PolicyRow[]>();
    byCase.set(index, policies);
    policies.set(job.arm, s.rows.get(job.jobId)!);
  }
  const out: PolicyRow[] = [];
  for (const index of [...byCase.keys()].sort((a, b) => a - b)) {
    const policies = byCase.get(index)!;
    for (let k = 0; k < capacities; k += 1) for (const p of EVICTION_POLICIES) out.push(policies.get(p)![k]!);
  }
  return out;
}

function finish(s: State): SuiteFilesOutput {
  const started = s.started!;
  const missing = started.jobs.filter((j) => !s.rows.has(j.jobId)).length;
  if (missing > 0) throw new PolicyRunIncompleteError(s.runId!, missing, started.jobs.length);
  const config = started.config as unknown as RecordedConfig;
  const rows = orderedRows(s, config.capacities.length);
  const summary = summarizePolicyRows(config.protocolId, rows);
  const { dataset_sha256: _d, ...protocolArtifacts } = config.artifacts;
  // What the step's files say of the protocol: its status, its folder, layout and files.
  const { status, ...protocol } = config.protocol;
  const run = {
    schema_version: 1,
    protocol_id: config.protocolId,
    created_at: started.at,
    git: started.provenance.git,
    dataset: config.dataset,
    artifacts: protocolArtifacts,
    evaluation_time: new Date(typeof config.evaluationTime === 'number' ? config.evaluationTime : Date.parse(config.evaluationTime)).toISOString(),
    policies: [...EVICTION_POLICIES],
    capacities: config.capacities,
    protocol_status: status,
    protocol,
  };
  return {
    files: [
      { path: 'policy.raw.jsonl', content: jsonLines(rows) },
      { path: 'summary.json', content: jsonDocument({ ...summary, protocol_status: status }) },
      { path: 'run.json', content: jsonDocument(run) },
    ],
    table: () => policyTable(summary, rows.length, statusSuffixOf(status)),
  };
}

/** One line per group: support fully retained, its rate and the mean recall. */
function policyTable(summary: PolicySummary, rows: number, suffix: string): string {
  const head = `${'source'.padEnd(12)} ${'scenario'.padEnd(22)} ${'capacity'.padStart(8)} ${'policy'.padEnd(11)} ${'cases'.padStart(5)} ${'retained'.padStart(8)} ${'recall'.padStart(7)}`;
  const lines = summary.groups.map(
    (g) =>
      `${g.source.padEnd(12)} ${g.scenario.padEnd(22)} ${String(g.capacity).padStart(8)} ${g.policy.padEnd(11)} ${String(g.cases).padStart(5)} ${g.support_all_retained_rate.toFixed(3).padStart(8)} ${g.mean_support_recall.toFixed(3).padStart(7)}`,
  );
  return `${[`protocol ${summary.protocol_id}: ${rows} policy rows${suffix}`, head, ...lines].join('\n')}\n`;
}

/** The run-policy files as the suite's outputs. */
export const policyOutputs = defineOutputs<State>({
  files: POLICY_FILES,
  initialState: () => ({ runId: null, started: null, caseIndex: new Map(), rows: new Map() }),
  evolve,
  finish,
});
