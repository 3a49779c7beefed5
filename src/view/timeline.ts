import type { StoredEvent } from '../events/index.js';
import { lineDiff, type DiffLine } from './diff.js';

/** One event of a job's timeline, with what the page needs to place it. */
export interface TimelineEntry {
  seq: number;
  at: string;
  /** Milliseconds since the job's first event, by the recorded clock. */
  offset_ms: number;
  actor: string;
  /** The last segment of the actor path: parent, worker, grader, provider... */
  role: string;
  /** Worker turn named in the call id (`worker/turn-3/...`), when there is one. */
  turn: number | null;
  type: string;
  data: unknown;
}

/** One saved revision of the job's artifact, and its diff from the one before. */
export interface RevisionView {
  revision: number;
  sha256: string;
  content: string;
  diff: DiffLine[] | null;
}

/** A job page: its plan entry, its events in log order, its artifact revisions. */
export interface JobView {
  runId: string;
  jobId: string;
  caseId: string | null;
  arm: string | null;
  repetition: number | null;
  /** The worker that claimed the job (scale-out runs record it), when recorded. */
  claimedBy: unknown;
  timeline: TimelineEntry[];
  revisions: RevisionView[];
}

const TURN = /turn-(\d+)/;

/** `job/<jobId>/worker` → worker; the job's own actor (`job/<jobId>`) → job. */
function roleOf(actor: string, jobId: string): string {
  const last = actor.split('/').at(-1) ?? actor;
  return last === jobId ? 'job' : last;
}

/** Builds a job's page from its events (all of one job). Unknown event types pass through as data. */
export function jobView(runId: string, jobId: string, events: readonly StoredEvent[]): JobView {
  const t0 = events.length > 0 ? Date.parse(events[0]!.at) : 0;
  let started: { caseId: string; arm: string; repetition: number } | null = null;
  let claimedBy: unknown = null;
  const revisions: RevisionView[] = [];
  const timeline = events.map((e): TimelineEntry => {
    if (e.type === 'JobStarted') started = e.data;
    // JobClaimed is newer than this viewer's event union may be; it is read by name.
    if ((e.type as string) === 'JobClaimed') claimedBy = e.data;
    if (e.type === 'ArtifactRevised') {
      const prev = revisions.at(-1);
      revisions.push({ revision: e.data.revision, sha256: e.data.sha256, content: e.data.content, diff: prev ? lineDiff(prev.content, e.data.content) : null });
    }
    const callId = typeof (e.data as { callId?: unknown }).callId === 'string' ? (e.data as { callId: string }).callId : '';
    const turn = TURN.exec(callId);
    return {
      seq: e.seq,
      at: e.at,
      offset_ms: Date.parse(e.at) - t0,
      actor: e.actor,
      role: roleOf(e.actor, jobId),
      turn: turn ? Number(turn[1]) : null,
      type: e.type,
      data: e.data,
    };
  });
  const s = started as { caseId: string; arm: string; repetition: number } | null;
  return { runId, jobId, caseId: s?.caseId ?? null, arm: s?.arm ?? null, repetition: s?.repetition ?? null, claimedBy, timeline, revisions };
}
