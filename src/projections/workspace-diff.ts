// A job's workspace as its grader recorded it (WorkspaceCaptured): the changed files and their
// counts, and the unified diff read back from the run's blobs, bounded, for `evalog show` and the
// viewer's job page. The diff is text an agent wrote, so control characters come escaped
// (neutralise), as with an agent's output: a file cannot repaint the terminal or page showing it.
import type { DataOf, StoredEvent } from '../events/index.js';
import { readCheckedBlob, type BlobStore } from '../log/index.js';
import { own } from '../core/strings.js';
import { neutralise } from './stream-tail.js';

/** A job's last recorded workspace, with the event that recorded it (to name it when its blob is damaged). */
export interface RecordedWorkspace {
  event: { id: string; seq: number };
  files: DataOf<'WorkspaceCaptured'>['files'];
  skipped: DataOf<'WorkspaceCaptured'>['skipped'];
  diff: string | null;
  summary: DataOf<'WorkspaceCaptured'>['summary'];
}

/** How much of a diff is shown: its first lines, within a byte bound. */
export interface DiffLimits {
  lines: number;
  bytes: number;
}

/** The default bounds: the first 200 lines, at most 16 KiB. */
export const DIFF_LIMITS: DiffLimits = { lines: 200, bytes: 16 * 1024 };

/** The first lines of a diff, and what was left out. */
export interface DiffHead {
  /** The lines shown, control characters escaped; '' when nothing changed. */
  text: string;
  lines: number;
  totalLines: number;
  /** True when lines were left out (by either bound). */
  cut: boolean;
}

/** The recorded workspaces of a run by job id (pure); a job started again (a retry) starts without one. */
export const workspacesFold = {
  initialState: (): Map<string, RecordedWorkspace> => new Map(),
  evolve(s: Map<string, RecordedWorkspace>, e: StoredEvent): Map<string, RecordedWorkspace> {
    if (e.jobId === undefined) return s;
    if (e.type === 'JobStarted') s.delete(e.jobId);
    if (e.type === 'WorkspaceCaptured') {
      const d = e.data;
      s.set(own(e.jobId), { event: { id: own(e.id), seq: e.seq }, files: d.files, skipped: d.skipped, diff: d.diff, summary: d.summary });
    }
    return s;
  },
};

/** `2 files changed, +5 −1` (and the skipped files, when there were some). */
export function diffSummary(w: Pick<RecordedWorkspace, 'summary' | 'skipped'>): string {
  const { files, added, removed } = w.summary;
  const base = files === 0 ? 'no file changed' : `${files} file${files === 1 ? '' : 's'} changed, +${added} −${removed}`;
  return w.skipped.length === 0 ? base : `${base}; not captured: ${w.skipped.map((x) => `${x.path} (${x.reason})`).join(', ')}`;
}

/** The head of a job's diff, read from the run's blobs (BlobDamagedError, naming the event, when its blob is missing or altered). */
export async function workspaceDiffHead(w: RecordedWorkspace, blobs: Pick<BlobStore, 'get'>, limits: DiffLimits = DIFF_LIMITS): Promise<DiffHead> {
  if (w.diff === null) return { text: '', lines: 0, totalLines: 0, cut: false };
  const text = new TextDecoder().decode(await readCheckedBlob(blobs as BlobStore, w.diff, w.event));
  const all = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const shown: string[] = [];
  let bytes = 0;
  for (const line of all) {
    bytes += Buffer.byteLength(line) + 1;
    if (shown.length >= limits.lines || bytes > limits.bytes) break;
    shown.push(neutralise(line));
  }
  return { text: shown.join('\n'), lines: shown.length, totalLines: all.length, cut: shown.length < all.length };
}
