import type { StoredEvent } from '../events/index.js';
import { foldRunInfo, runInfoOf, type RunInfo } from '../log/index.js';
import { cmp } from '../projections/usage/index.js';

/** What the runs list shows of a run besides its usage: plan, progress and recorded times. */
export interface RunDigest {
  runId: string;
  status: RunInfo['status'];
  suite: string | null;
  model: string | null;
  scripted: boolean | null;
  arms: string[];
  jobs: { planned: number; started: number; succeeded: number; failed: number; running: number };
  startedAt: string | null;
  lastAt: string | null;
  /** From RunStarted to the last recorded event, by the recorded clock (so a rebuild agrees). */
  elapsedSeconds: number | null;
  events: number;
  lastSeq: number;
}

/** Accumulator of the digest fold; `result` turns it into a `RunDigest`. */
export interface DigestState {
  info: RunInfo;
  model: string | null;
  scripted: boolean | null;
  arms: Set<string>;
  planned: number;
  started: Set<string>;
  succeeded: Set<string>;
  failed: Set<string>;
  lastAt: string | null;
  lastSeq: number;
}

/** An empty digest of a run. */
export function digestState(runId: string): DigestState {
  return {
    info: runInfoOf(runId, []),
    model: null,
    scripted: null,
    arms: new Set(),
    planned: 0,
    started: new Set(),
    succeeded: new Set(),
    failed: new Set(),
    lastAt: null,
    lastSeq: 0,
  };
}

/** One step of the digest fold. Sets of job ids, so a job counted twice (resume) counts once. */
export function evolveDigest(s: DigestState, e: StoredEvent): DigestState {
  // The status comes from the log's own fold, so the viewer and `evalog runs` never disagree.
  foldRunInfo(s.info, e);
  s.lastSeq = e.seq;
  s.lastAt = e.at;
  switch (e.type) {
    case 'RunStarted':
      s.model = e.data.model.name;
      s.scripted = e.data.model.scripted;
      s.planned = e.data.jobs.length;
      for (const j of e.data.jobs) s.arms.add(j.arm);
      break;
    case 'JobStarted':
      s.started.add(e.jobId!);
      s.arms.add(e.data.arm);
      break;
    case 'JobSucceeded':
      s.succeeded.add(e.jobId!);
      break;
    case 'JobFailed':
      s.failed.add(e.jobId!);
      break;
    default:
      break;
  }
  return s;
}

/** The digest as served. */
export function digestOf(s: DigestState): RunDigest {
  const ended = new Set([...s.succeeded, ...s.failed]);
  const startMs = s.info.startedAt === null ? NaN : Date.parse(s.info.startedAt);
  const lastMs = s.lastAt === null ? NaN : Date.parse(s.lastAt);
  return {
    runId: s.info.runId,
    status: s.info.status,
    suite: s.info.suite,
    model: s.model,
    scripted: s.scripted,
    arms: [...s.arms].sort(cmp),
    jobs: {
      planned: s.planned,
      started: s.started.size,
      succeeded: s.succeeded.size,
      failed: s.failed.size,
      running: [...s.started].filter((j) => !ended.has(j)).length,
    },
    startedAt: s.info.startedAt,
    lastAt: s.lastAt,
    elapsedSeconds: Number.isFinite(startMs) && Number.isFinite(lastMs) ? (lastMs - startMs) / 1000 : null,
    events: s.info.events,
    lastSeq: s.lastSeq,
  };
}
