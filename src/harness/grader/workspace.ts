// The workspace a grade read, as the event that records it: each changed file and the diff are
// stored as blobs (content-addressed, so the same file in many jobs is stored once), and the
// event holds their references and the diff's totals. Rows, `evalog show` and the viewer read it
// from the log alone; no workspace is needed after the job.
import { sha256 } from '../../core/canonical.js';
import { draft, type Draft } from '../kernel/journal.js';
import type { JobJournal } from '../kernel/ports.js';
import type { GradedWorkspace } from '../suite/types.js';

/** Stores the graded workspace's files and diff as blobs and returns the WorkspaceCaptured that references them. */
export async function workspaceDraft(journal: Pick<JobJournal, 'blobs' | 'storedBlobs' | 'scope'>, w: GradedWorkspace): Promise<Draft<'WorkspaceCaptured'>> {
  const put = async (text: string): Promise<string> => {
    const bytes = Buffer.from(text, 'utf8');
    const ref = sha256(bytes);
    // While replaying, the event is recorded, so its blobs are already stored.
    if (!journal.storedBlobs.has(ref) && !journal.scope.replaying) {
      await journal.blobs.put(bytes);
      journal.storedBlobs.add(ref);
    }
    return ref;
  };
  const files = [];
  for (const f of [...w.files].sort((a, b) => cmp(a.path, b.path))) {
    files.push({ path: f.path, change: f.change, blob: f.content === null ? null : await put(f.content), added: f.added, removed: f.removed });
  }
  const summary = { files: files.length, added: sum(files.map((f) => f.added)), removed: sum(files.map((f) => f.removed)) };
  const skipped = [...w.skipped].sort((a, b) => cmp(a.path, b.path));
  return draft('WorkspaceCaptured', { files, skipped, diff: w.diff === '' ? null : await put(w.diff), summary });
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
