// The tools on a job's workspace: list, read, write (a new artifact revision of the changes) and
// run the repository's own tests in the sandbox. Each is a function of the case, the artifact and
// the arguments (the sandbox's verdicts are deterministic for deterministic code), so replay,
// which runs the built-in worker's tools again, gets the same results.
import { runTestFiles } from '../../sandbox/index.js';
import type { ToolContext, ToolOutcome } from '../../harness/suite/types.js';
import { isVisibleTest, type CodingCase } from './cases.js';
import { applied, changesArtifact, changesOf, pathRefusal, WORKSPACE_LIMITS, withWrite } from './workspace.js';

/** The most characters of a file read_file returns. */
const MAX_READ_CHARS = 64 * 1024;

/** Runs one of the workspace tools (see WORKSPACE_TOOLS); mistakes are tool errors the model reads. */
export async function runWorkspaceTool(name: string, rawArgs: string, ctx: ToolContext<CodingCase>): Promise<ToolOutcome> {
  const args = parseArgs(rawArgs);
  if (!args) return refuse('arguments are not a JSON object');
  const seed = ctx.case.data.files;
  const changes = changesOf(ctx.artifact);
  const files = applied(seed, changes);
  switch (name) {
    case 'list_files':
      return { result: Object.keys(files).join('\n'), isError: false };
    case 'read_file': {
      const path = typeof args.path === 'string' ? args.path : null;
      if (path === null) return refuse('path must be a string');
      const text = Object.hasOwn(files, path) ? files[path]! : null;
      if (text === null) return refuse(`no file ${JSON.stringify(path)} (list_files names them)`);
      return { result: text.length > MAX_READ_CHARS ? `${text.slice(0, MAX_READ_CHARS)}\n[cut at ${MAX_READ_CHARS} characters]` : text, isError: false };
    }
    case 'write_file': {
      if (typeof args.path !== 'string') return refuse('path must be a string');
      if (typeof args.content !== 'string') return refuse('content must be a string');
      const { path, content } = args;
      const why = pathRefusal(seed, path);
      if (why !== null) return refuse(`cannot write ${JSON.stringify(path)}: ${why}`);
      if (Buffer.byteLength(content) > WORKSPACE_LIMITS.fileBytes) return refuse(`content is over ${WORKSPACE_LIMITS.fileBytes} bytes`);
      const next = withWrite(seed, changes, path, content);
      if (Object.keys(next).length > WORKSPACE_LIMITS.files) return refuse(`a job may change at most ${WORKSPACE_LIMITS.files} files`);
      const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
      return { result: `wrote ${path} (${lines} line${lines === 1 ? '' : 's'})`, isError: false, artifact: changesArtifact(next) };
    }
    case 'run_tests':
      return { result: await visibleTestReport(files), isError: false };
    default:
      return refuse(`unknown tool ${JSON.stringify(name)}`);
  }
}

/** The repository's own tests on these files: one line per test file, then the count that passed. */
export async function visibleTestReport(files: Readonly<Record<string, string>>): Promise<string> {
  const tests = Object.keys(files).filter(isVisibleTest);
  if (tests.length === 0) return 'no test files (test/*.test.js)';
  const results = await runTestFiles({ files, tests });
  const lines = results.map((r) => (r.passed ? `PASS ${r.test}` : `FAIL ${r.test}: ${r.detail}`));
  const passed = results.filter((r) => r.passed).length;
  return [...lines, `${passed} of ${results.length} test files passed`].join('\n');
}

function refuse(message: string): ToolOutcome {
  return { result: `error: ${message}`, isError: true };
}

function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw === '' ? '{}' : raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
