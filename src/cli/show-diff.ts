// The part of `evalog show` for a job whose grader recorded its workspace (the coding suite): how
// many files and lines changed, then the unified diff's first lines, read from the run's blobs.
import type { BlobStore } from '../log/index.js';
import { DIFF_LIMITS, diffSummary, workspaceDiffHead, type RecordedWorkspace } from '../projections/index.js';
import type { ShowField } from './agent-tail.js';

/** The diff field of a job, its text read from `blobs`; none when the job recorded no workspace. */
export async function diffFieldsOf(w: RecordedWorkspace | undefined, blobs: Pick<BlobStore, 'get'>): Promise<ShowField[]> {
  if (w === undefined) return [];
  const head = await workspaceDiffHead(w, blobs);
  const lines = [diffSummary(w)];
  if (head.text !== '') lines.push(head.text);
  if (head.cut)
    lines.push(
      `… ${head.totalLines - head.lines} more lines (show prints ${DIFF_LIMITS.lines} lines, ${DIFF_LIMITS.bytes / 1024} KiB at most; the whole diff is blob ${w.diff} of the run)`,
    );
  return [['diff', lines.join('\n')]];
}
