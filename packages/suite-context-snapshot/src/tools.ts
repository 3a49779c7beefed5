import type { ToolContext, ToolOutcome } from 'evalog';
import { gradeArtifact, publicCheckReport } from './grading.js';
import type { Task } from './manifest.js';

/** What read_reference says of a name that is no bundled document; it names no document, so it gives none away. */
export const NO_SUCH_DOCUMENT = 'There is no bundled document of that name. Work from the requirements the task and the conversation already give you.';

/** Runs one of the worker's three tools. `run_public_checks` grades the last revision in public mode. */
export async function runTool(name: string, rawArgs: string, ctx: ToolContext<Task>): Promise<ToolOutcome> {
  const args = parseArgs(rawArgs);
  if (!args) return { result: 'Error: arguments must be a JSON object.', isError: true };
  const task = ctx.case.data;
  switch (name) {
    case 'write_artifact': {
      if (typeof args.content !== 'string' || args.content.trim() === '') return { result: 'Error: content must be a non-empty string.', isError: true };
      const revision = ctx.revision + 1;
      const file = task.kind === 'json' ? 'artifact.json' : 'artifact.js';
      return { result: `Saved revision ${revision} to ${file}.`, isError: false, artifact: args.content };
    }
    case 'read_reference': {
      const doc = typeof args.document === 'string' ? args.document : '';
      const text = Object.hasOwn(task.references, doc) ? task.references[doc] : undefined;
      if (text !== undefined) return { result: text, isError: false };
      // The refusal lists no names: a worker that was not told a document's name must not learn it here.
      return { result: NO_SUCH_DOCUMENT, isError: true };
    }
    case 'run_public_checks': {
      if (ctx.artifact === null)
        return { result: JSON.stringify({ public_checks_passed: false, revision: null, details: ['no revision saved yet'] }), isError: false };
      const graded = await gradeArtifact(task, ctx.artifact, 'public');
      return { result: publicCheckReport(graded, ctx.revision), isError: false };
    }
    default:
      return { result: `Error: unknown tool ${JSON.stringify(name)}.`, isError: true };
  }
}

/** A tool call's arguments as an object (an empty string is none); null when they are not a JSON object. */
export function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw === '' ? '{}' : raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
