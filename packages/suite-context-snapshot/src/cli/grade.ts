// `evalog context-snapshot <step>`: offline tools of the context-snapshot suite. `grade` grades
// one artifact file against a case's hidden checks, without a run: evalog's bundled tasks by
// default, or the published protocol's cases read from the user's copy (--protocol-dir).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIO, Command, Steps } from 'evalog';
import { EXIT, InputError, PythonUnavailableError, parseCommandArgs, runSteps, SandboxUnavailableError } from 'evalog';
import { PythonGradeStalledError } from '../python-grader.js';
import { loadTasks } from '../tasks.js';
import { gradeArtifact } from '../grading.js';
import { loadContextSnapshotProtocol } from '../protocol/index.js';
import { gradeProtocolCase } from '../protocol-grading.js';

const HELP = `Usage: evalog context-snapshot <step> [options]

Offline tools of the context-snapshot suite:
  grade --case ID FILE               grade one artifact file against the case's hidden checks

grade options:
  --case ID                          the case (a task id of evalog's bundled tasks, or a protocol case name)
  --protocol-dir DIR                 grade against the published protocol's cases, read from DIR (the
                                     user's copy of the upstream context_snapshot/ folder, pinned by sha256)
  --allow-unpinned                   with --protocol-dir: accept files whose sha256 is not the published one

It prints one JSON object: {case, kind, valid, error (when invalid), checks: [{check, passed}],
passed (how many checks passed), total (how many checks)}. The exit code is 0 whether the artifact
passes or not; 2 for bad input (an unknown case, an unreadable file, a protocol folder that cannot
be used). Code artifacts run in a restricted child process, which is not an operating-system
sandbox: grade only what you would run on this machine.
`;

/** What `grade` prints. */
interface GradeReport {
  case: string;
  kind: string;
  valid: boolean;
  error?: string;
  checks: { check: string | number; passed: boolean }[];
  passed: number;
  total: number;
}

function report(caseId: string, kind: string, valid: boolean, error: string | null, checks: GradeReport['checks']): GradeReport {
  return {
    case: caseId,
    kind,
    valid,
    ...(valid ? {} : { error: error ?? 'the artifact is invalid' }),
    checks,
    passed: checks.filter((c) => c.passed).length,
    total: checks.length,
  };
}

async function gradeBundled(caseId: string, content: string): Promise<GradeReport> {
  const tasks = loadTasks();
  const task = tasks.find((t) => t.id === caseId);
  if (!task)
    throw new InputError(`evalog context-snapshot grade: --case: unknown case ${JSON.stringify(caseId)} (bundled tasks: ${tasks.map((t) => t.id).join(', ')})`);
  const g = await gradeArtifact(task, content, 'hidden');
  return report(
    task.id,
    task.kind,
    g.valid,
    g.invalidReason,
    g.checks.map((c) => ({ check: c.id, passed: c.passed })),
  );
}

// The cases come from the user's copy, its pins checked first (a changed file is refused unless
// --allow-unpinned); the grading is gradeProtocolCase's, the one the suite's protocol mode uses.
async function gradeProtocol(dir: string, allowUnpinned: boolean, caseId: string, content: string): Promise<GradeReport> {
  const protocol = loadContextSnapshotProtocol(dir, { allowUnpinned });
  const c = protocol.cases.find((p) => p.name === caseId);
  if (!c)
    throw new InputError(
      `evalog context-snapshot grade: --case: unknown case ${JSON.stringify(caseId)} (cases of ${protocol.source}: ${protocol.cases.map((p) => p.name).join(', ')})`,
    );
  const g = await gradeProtocolCase(c, content, 'hidden');
  return report(
    c.name,
    c.kind,
    g.valid,
    g.error,
    g.checks.map((r) => ({ check: r.check, passed: r.passed })),
  );
}

async function readArtifact(cwd: string, file: string): Promise<string> {
  const path = resolve(cwd, file);
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (err as Error).message;
    throw new InputError(`evalog context-snapshot grade: ${path}: cannot read the artifact: ${why}`);
  }
}

async function grade(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs('context-snapshot grade', args, {
    case: { type: 'string' },
    'protocol-dir': { type: 'string' },
    'allow-unpinned': { type: 'boolean' },
  });
  if (!values.case) throw new InputError('evalog context-snapshot grade: give --case ID (see evalog context-snapshot --help)');
  if (positionals.length !== 1) throw new InputError(`evalog context-snapshot grade: give exactly one artifact FILE (got ${positionals.length})`);
  if (values['allow-unpinned'] && !values['protocol-dir'])
    throw new InputError('evalog context-snapshot grade: --allow-unpinned applies only with --protocol-dir');
  const dir = values['protocol-dir'];
  const content = await readArtifact(io.cwd, positionals[0]!);
  let out: GradeReport;
  try {
    out =
      dir === undefined
        ? await gradeBundled(values.case, content)
        : await gradeProtocol(resolve(io.cwd, dir), values['allow-unpinned'] ?? false, values.case, content);
  } catch (err) {
    // The grader itself could not start, or stalled: say so in one line; it is no verdict on the artifact.
    if (err instanceof PythonUnavailableError || err instanceof SandboxUnavailableError || err instanceof PythonGradeStalledError) {
      io.stderr.write(`evalog context-snapshot grade: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  }
  io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  return EXIT.ok;
}

const STEPS: Steps = { grade };

/** `evalog context-snapshot <step>`. */
export const contextSnapshotCommand: Command = {
  name: 'context-snapshot',
  summary: 'offline tools of the context-snapshot suite: grade one artifact file',
  help: HELP,
  run: (args: string[], io: CliIO) => runSteps('context-snapshot', STEPS, () => HELP, args, io),
};
