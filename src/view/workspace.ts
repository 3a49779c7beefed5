// The job page's "Workspace": for a job whose grader recorded its workspace (the coding suite),
// the files changed with their line counts and the unified diff's first lines, as `evalog show`
// prints them. Read from the run's blobs on demand; the page asks only when the job's timeline has
// a WorkspaceCaptured. The diff comes with control characters escaped, and the page puts it in as
// text, never as HTML.
import { BlobDamagedError, type BlobStore } from '../log/index.js';
import { diffSummary, workspaceDiffHead, workspacesFold, type DiffHead, type RecordedWorkspace } from '../projections/index.js';
import type { RunCatalog } from './catalog.js';
import { HttpError } from './errors.js';

/** A job's recorded workspace; `workspace` is null when the job recorded none. */
export interface WorkspaceView {
  runId: string;
  jobId: string;
  workspace: { summary: string; files: RecordedWorkspace['files']; skipped: RecordedWorkspace['skipped']; diff: DiffHead } | null;
}

/** The recorded workspace of one job; a damaged blob is a 409 naming the event (the log is damaged, not the viewer). */
export async function workspacePage(catalog: RunCatalog, runId: string, jobId: string, blobs: BlobStore): Promise<WorkspaceView> {
  const run = await catalog.get(runId);
  if (!run) throw new HttpError(404, `no run ${JSON.stringify(runId)}`);
  const events = run.events.filter((e) => e.jobId === jobId);
  if (events.length === 0) throw new HttpError(404, `run ${runId} has no job ${JSON.stringify(jobId)}`);
  const w = events.reduce(workspacesFold.evolve, workspacesFold.initialState()).get(jobId);
  if (!w) return { runId, jobId, workspace: null };
  let diff: DiffHead;
  try {
    diff = await workspaceDiffHead(w, blobs);
  } catch (err) {
    if (err instanceof BlobDamagedError) throw new HttpError(409, err.message);
    throw err;
  }
  return { runId, jobId, workspace: { summary: diffSummary(w), files: w.files, skipped: w.skipped, diff } };
}
