import { z } from 'zod';
import { BlobRef } from './common.js';
import { eventSchema } from './envelope.js';

/** How one file of a workspace differs from the workspace the job was given. */
export const WorkspaceChange = z.enum(['added', 'modified', 'deleted']);
export type WorkspaceChange = z.infer<typeof WorkspaceChange>;

/** One changed file of a captured workspace. */
export const WorkspaceFile = z.object({
  path: z.string().describe('Path relative to the workspace, with `/` separators'),
  change: WorkspaceChange,
  blob: BlobRef.nullable().describe('The file as the job left it (UTF-8 text); null when deleted'),
  added: z.number().int().nonnegative().describe('Lines added by the diff'),
  removed: z.number().int().nonnegative().describe('Lines removed by the diff'),
});

/**
 * The grader read the job's workspace as the job left it: its changed files (as blobs), what could
 * not be read as text, and the unified diff against the files the job was given (a blob), so rows,
 * `evalog show` and the viewer need no workspace and a rebuild reproduces them from the log alone.
 */
export const WorkspaceCaptured = eventSchema(
  'WorkspaceCaptured',
  1,
  z.object({
    files: z.array(WorkspaceFile).describe('Changed files, sorted by path'),
    skipped: z
      .array(z.object({ path: z.string(), reason: z.string().describe('e.g. `binary`, `too large`, `symbolic link`') }))
      .describe('Changed paths that were not captured (and so not graded as changed), sorted by path'),
    diff: BlobRef.nullable().describe('The unified diff of every changed file, sorted by path; null when nothing changed'),
    summary: z
      .object({
        files: z.number().int().nonnegative().describe('Files changed'),
        added: z.number().int().nonnegative().describe('Lines added'),
        removed: z.number().int().nonnegative().describe('Lines removed'),
      })
      .describe('Totals of the diff'),
  }),
);

/** Events of the workspace family. */
export const WorkspaceEvents = [WorkspaceCaptured] as const;
