/**
 * `qa_run.json`, the run marker of run-qa with the published file's fields (schema_version 2,
 * protocol_id, created_at, git, dataset, artifacts with the dataset's hash, qa settings) plus where
 * the protocol came from. A pure projection of the run's `RunStarted` event, so it rebuilds from
 * the log: the event's config holds the protocol's record, its provenance the git state.
 */
import type { StoredEvent } from 'evalog';
import type { z } from 'zod';
import { type QaProtocolRecord, QaRunConfig } from './qa-config.js';

/** The marker's file in the run folder. */
export const QA_RUN_FILE = 'qa_run.json';

/** The marker as written. */
export interface QaRunMarker {
  schema_version: 2;
  protocol_id: string;
  created_at: string;
  git: { head: string | null; dirty: boolean | null };
  dataset: { repository: string; revision: string; filename: string; sha256: string };
  artifacts: Record<string, string>;
  qa: QaRunConfig['qa'];
  /** Not in the published file: what this run's protocol is ("pinned protocol", "unpinned protocol", "evalog offline variant"). */
  protocol_status: z.infer<typeof QaProtocolRecord>['status'];
  /** Not in the published file: the protocol folder and each file's path and sha256. */
  protocol: Omit<z.infer<typeof QaProtocolRecord>, 'status'>;
}

/** The marker of a run from its RunStarted event; null for a run recorded before run-qa kept the protocol's record. */
export function qaRunMarker(started: Extract<StoredEvent, { type: 'RunStarted' }>): QaRunMarker | null {
  const parsed = QaRunConfig.safeParse(started.data.config);
  if (!parsed.success) return null;
  const c = parsed.data;
  const git = started.data.provenance.git as { revision?: unknown; dirty?: unknown } | null | undefined;
  const { status, ...protocol } = c.protocol;
  return {
    schema_version: 2,
    protocol_id: c.protocolId,
    created_at: started.at,
    git: { head: typeof git?.revision === 'string' ? git.revision : null, dirty: typeof git?.dirty === 'boolean' ? git.dirty : null },
    dataset: { ...c.dataset, sha256: c.artifacts.dataset_sha256 ?? '' },
    artifacts: c.artifacts,
    qa: c.qa,
    protocol_status: status,
    protocol,
  };
}
