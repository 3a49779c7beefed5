// The worker's three tools in a protocol-folder run, returning what the published runner's tools
// return: the saved revision's file name, a reference's text (or one fixed message that names no
// document), and the public grade as JSON {public_checks_passed, revision, details}.
import type { ToolContext, ToolOutcome } from 'evalog';
import { gradeProtocolCase, protocolPassed } from './protocol-grading.js';
import type { ProtocolTask } from './protocol-prompts.js';
import { NO_SUCH_DOCUMENT, parseArgs } from './tools.js';

/** The artifact's file name for a case's kind, as the runner names it. */
export const protocolArtifactFile = (kind: 'json' | 'python'): string => (kind === 'json' ? 'artifact.json' : 'artifact.py');

/** Runs one tool of a protocol run. Deterministic (the grader is), so replay re-runs it to the same result. */
export async function runProtocolTool(name: string, rawArgs: string, ctx: ToolContext<ProtocolTask>): Promise<ToolOutcome> {
  const args = parseArgs(rawArgs);
  if (!args) return { result: 'Error: arguments must be a JSON object.', isError: true };
  const c = ctx.case.data.case;
  switch (name) {
    case 'write_artifact': {
      if (typeof args.content !== 'string') return { result: 'Error: content must be a string.', isError: true };
      const revision = ctx.revision + 1;
      return { result: `Saved revision ${revision} to ${protocolArtifactFile(c.kind)}`, isError: false, artifact: args.content };
    }
    case 'read_reference': {
      const doc = typeof args.document === 'string' ? args.document : '';
      // Not an error to the runner: the fixed message is the tool's answer.
      return { result: Object.hasOwn(c.references, doc) ? c.references[doc]! : NO_SUCH_DOCUMENT, isError: false };
    }
    case 'run_public_checks': {
      const grade = await gradeProtocolCase(c, ctx.artifact, 'public');
      return { result: JSON.stringify({ public_checks_passed: protocolPassed(grade), revision: ctx.revision, details: grade }), isError: false };
    }
    default:
      return { result: `Error: unknown tool ${JSON.stringify(name)}.`, isError: true };
  }
}
