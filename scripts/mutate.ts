// A small mutation check: a fixed list of deliberate breaks in src/, each applied alone to a copy of
// the committed tree (git archive HEAD, never the working tree, where others may be editing), with
// the tests that should catch it run there. A break whose tests still pass has survived: the claim
// it breaks is not protected by any test.
//
//   npm run mutate                      every break
//   npm run mutate -- --only NAME ...   some breaks (repeatable)
//   npm run mutate -- --list            the breaks and their tests
//   npm run mutate -- --keep            keep the copy and the test logs (printed at the end)
//   npm run mutate -- --no-baseline     skip the run of each test set on the unbroken copy
//
// Exit 0 when every break was caught, 1 when one survived, 2 when a break could not be applied
// (its search text is not in the file exactly once), its tests did not run (a load error is not a
// catch), or a test set fails without any break.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One deliberate break: where, what it replaces, and the tests that must fail with it. */
interface Break {
  name: string;
  /** The claim the break takes away. */
  why: string;
  /** The file to edit; alternatives when the code may live in one of several files. */
  file: string | string[];
  search: string;
  replace: string;
  tests: string[];
  /** Runs only the tests whose title matches (mocha --grep). */
  grep?: string;
}

// Forces every check of one arm to pass: grading that peeks at the arm.
const forcePass = (arm: string): Pick<Break, 'file' | 'search' | 'replace'> => ({
  file: ['src/harness/grader/grade.ts', 'src/harness/grader/machine.ts'],
  search: 'decideGrade(graded)',
  replace: `decideGrade(env.job.arm === '${arm}' ? { ...graded, checks: graded.checks.map((c) => ({ ...c, passed: true })) } : graded)`,
});

const GRADING_TESTS = ['test/replay/replay.test.ts', 'test/replay/golden.test.ts', 'test/unit/grading-arm-blind.test.ts'];

const BREAKS: Break[] = [
  {
    name: 'replay-ignores-v',
    why: 'replay compares the schema version of each event',
    file: 'src/harness/kernel/journal.ts',
    search: "'type', 'v', 'actor'",
    replace: "'type', 'actor'",
    tests: ['test/replay/divergence.test.ts'],
  },
  {
    name: 'replay-ignores-request-data',
    why: 'replay compares the data of ProviderCallRequested (a changed prompt)',
    file: 'src/harness/kernel/journal.ts',
    search: "diffValue('data', logged.data, emitted.data, out);",
    replace: "if (logged.type !== 'ProviderCallRequested') diffValue('data', logged.data, emitted.data, out);",
    tests: ['test/replay/divergence.test.ts'],
  },
  {
    name: 'replay-exit-0',
    why: 'evalog replay exits 1 on a divergence',
    file: 'src/cli/replay.ts',
    search: 'return EXIT.failed;',
    replace: 'return EXIT.ok;',
    tests: ['test/replay/divergence.test.ts'],
    grep: 'evalog replay exits 1',
  },
  {
    name: 'replay-ignores-actor',
    why: 'replay compares the actor of each event',
    file: 'src/harness/kernel/journal.ts',
    search: "'v', 'actor', 'causationId'",
    replace: "'v', 'causationId'",
    tests: ['test/replay/divergence.test.ts'],
  },
  { name: 'grader-favours-full_handoff', why: 'grading is blind to the arm (smoke)', ...forcePass('full_handoff'), tests: GRADING_TESTS },
  { name: 'grader-favours-snapshot', why: 'grading is blind to the arm (context-snapshot)', ...forcePass('snapshot'), tests: GRADING_TESTS },
  { name: 'grader-favours-candidate', why: 'grading is blind to the arm (context-engineering)', ...forcePass('candidate'), tests: GRADING_TESTS },
  {
    name: 'resume-resends-completed',
    why: 'resume never sends a completed call again',
    file: 'src/harness/provider/effects.ts',
    search: 'resultOf(recorded)',
    // Sent again and paid for, but the recorded answer is kept: the log alone cannot tell.
    replace:
      "(env.journal.mode === 'resume' && (await callLive(env, { model: env.model, messages: input.messages, tools: input.tools, params }, input.callId)), resultOf(recorded))",
    tests: ['test/unit/context-engineering-restart.test.ts'],
  },
  {
    name: 'cs-mean-ignores-incomplete-usage',
    why: "context-snapshot's mean_total_tokens is null when any usage is missing",
    file: 'src/suites/context-snapshot/report.ts',
    search: 'mean_total_tokens: complete && rs.length > 0',
    replace: 'mean_total_tokens: rs.length > 0',
    tests: ['test/unit/context-snapshot-results.test.ts'],
  },
  {
    name: 'summary-mean-ignores-incomplete-usage',
    why: "summary.json's mean_total_tokens is null when any usage is missing",
    file: 'src/projections/summary.ts',
    search: 'mean_total_tokens: complete && rows.length > 0',
    replace: 'mean_total_tokens: rows.length > 0',
    tests: ['test/replay/golden.test.ts', 'test/unit/projection-summary.test.ts'],
  },
  {
    name: 'view-compare-swaps-only-a-b',
    why: "the viewer's paired comparison counts only-a and only-b on the right sides",
    file: 'src/view/compare.ts',
    search: 'else if (pa) table.only_a += 1;\n    else if (pb) table.only_b += 1;',
    replace: 'else if (pa) table.only_b += 1;\n    else if (pb) table.only_a += 1;',
    tests: ['test/unit/view-parts.test.ts'],
  },
  {
    name: 'workers-no-fencing',
    why: 'a worker that lost its job cannot write to it (fencing, not only id dedup)',
    file: 'src/harness/kernel/journal.ts',
    search: 'const result = this.fencedAt === undefined ? (await log.append([event]))[0] : await this.appendFenced(event);',
    replace: 'const result = (await log.append([event]))[0];',
    tests: ['test/e2e/workers.test.ts'],
    grep: 'paused past its lease',
  },
  {
    name: 'interrupt-not-recorded-aborted',
    why: 'a call in flight at Ctrl-C is recorded as aborted',
    file: 'src/providers/outcomes.ts',
    search: "return failure('aborted', null, 'aborted by interrupt', true, latencyMs);",
    replace: "return failure('connection', null, 'connection failed: interrupted', true, latencyMs);",
    tests: ['test/e2e/crash-resume.test.ts'],
    grep: 'SIGINT mid-run',
  },
  {
    name: 'endpoint-value-recorded',
    why: 'run.json names the endpoint variable, never its value',
    file: 'src/harness/endpoint/endpoint.ts',
    search: 'baseUrlEnv: endpoint.baseUrlEnv',
    replace: 'baseUrlEnv: endpoint.baseURL',
    tests: ['test/e2e/usage-and-secrets.test.ts'],
  },
];

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Options {
  only: string[];
  list: boolean;
  keep: boolean;
  baseline: boolean;
}

function parse(argv: string[]): Options {
  const o: Options = { only: [], list: false, keep: false, baseline: true };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if (a === '--only') o.only.push(argv[++i] ?? fail('--only needs a break name'));
    else if (a === '--list') o.list = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--no-baseline') o.baseline = false;
    else fail(`unknown argument ${JSON.stringify(a)} (see the header of scripts/mutate.ts)`);
  }
  for (const n of o.only)
    if (!BREAKS.some((b) => b.name === n)) fail(`--only: no break named ${JSON.stringify(n)}; known: ${BREAKS.map((b) => b.name).join(', ')}`);
  return o;
}

function fail(message: string): never {
  process.stderr.write(`mutate: ${message}\n`);
  process.exit(2);
}

/** The committed tree in `<tmp>/main`, beside a `shared` link (tests read ../shared/fixtures). */
function copyOfHead(): { tmp: string; tree: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'evalog-mutate-'));
  const tree = join(tmp, 'main');
  mkdirSync(tree);
  const archive = spawnSync('git', ['archive', '--format=tar', 'HEAD'], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) fail(`git archive HEAD failed: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', tree], { input: archive.stdout });
  if (untar.status !== 0) fail(`tar -x failed: ${untar.stderr.toString()}`);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  const shared = resolve(ROOT, '..', 'shared');
  if (existsSync(shared)) symlinkSync(shared, join(tmp, 'shared'), 'dir');
  // Without it the tests that read the published fixtures skip (test/support/published.ts).
  else process.stderr.write('mutate: ../shared is absent: tests that read the published fixtures skip, so breaks only they catch show as survived\n');
  return { tmp, tree };
}

/** The one file of `b` holding its search text exactly once, or an explanation. */
function locate(tree: string, b: Break): { file: string; text: string } | string {
  const files = Array.isArray(b.file) ? b.file : [b.file];
  const hits: { file: string; text: string; count: number }[] = [];
  for (const f of files) {
    const path = join(tree, f);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    const count = text.split(b.search).length - 1;
    if (count > 0) hits.push({ file: f, text, count });
  }
  const total = hits.reduce((s, h) => s + h.count, 0);
  if (total !== 1) return `search text found ${total} times in ${files.join(' | ')} (must be exactly once): ${JSON.stringify(b.search)}`;
  return { file: hits[0]!.file, text: hits[0]!.text };
}

/** With the shared link made, a missing published folder fails its tests instead of skipping them. */
const requirePublished = (tree: string): Record<string, string> =>
  existsSync(join(tree, '..', 'shared', 'fixtures', 'published')) ? { EVALOG_REQUIRE_PUBLISHED: '1' } : {};

/** Runs mocha on `tests` in the copy; resolves with the exit code and output, also written to `logFile`. */
function mocha(tree: string, tests: string[], grep: string | undefined, logFile: string): Promise<{ status: number; out: string }> {
  const bin = join(tree, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const args = [bin, '--no-config', '-n', 'import=tsx', '--timeout', '60000', '--reporter', 'dot', ...(grep ? ['--grep', grep] : []), ...tests];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: tree,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', ...requirePublished(tree) },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code, signal) => {
      writeFileSync(logFile, out);
      done({ status: code ?? (signal ? 128 : 1), out });
    });
  });
}

interface Result {
  name: string;
  tests: string;
  outcome: 'caught' | 'survived' | 'not applied' | 'not run';
  note: string;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const breaks = o.only.length > 0 ? BREAKS.filter((b) => o.only.includes(b.name)) : BREAKS;
  if (o.list) {
    for (const b of breaks)
      process.stdout.write(
        `${b.name}\n  ${b.why}\n  ${[b.file].flat().join(' | ')}: ${JSON.stringify(b.search)}\n  tests: ${b.tests.join(' ')}${b.grep ? ` --grep ${JSON.stringify(b.grep)}` : ''}\n`,
      );
    return;
  }
  const { tmp, tree } = copyOfHead();
  const logs = join(tmp, 'logs');
  mkdirSync(logs);
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).stdout.toString().trim();
  process.stderr.write(`mutate: ${breaks.length} breaks on a copy of HEAD ${head} in ${tree}\n`);
  const present = (b: Break) => b.tests.filter((t) => existsSync(join(tree, t)));
  let code = 0;
  try {
    // A break counts as caught only if its tests pass without it.
    if (o.baseline) {
      const sets = new Map<string, Break>();
      for (const b of breaks) if (present(b).length > 0) sets.set(`${present(b).join(' ')}|${b.grep ?? ''}`, b);
      // A grep selects a subset: the whole files' baseline covers it.
      for (const key of [...sets.keys()]) if (!key.endsWith('|') && sets.has(key.replace(/\|.*$/, '|'))) sets.delete(key);
      for (const [key, b] of sets) {
        process.stderr.write(`mutate: baseline ${key}\n`);
        const { status } = await mocha(tree, present(b), b.grep, join(logs, `baseline-${b.name}.log`));
        if (status !== 0) fail(`the tests of ${b.name} fail without any break (see ${join(logs, `baseline-${b.name}.log`)}); fix them first`);
      }
    }
    const results: Result[] = [];
    for (const b of breaks) {
      const tests = present(b);
      const missing = b.tests.filter((t) => !tests.includes(t));
      const where = locate(tree, b);
      const row = { name: b.name, tests: tests.join(' ') + (b.grep ? ` (grep "${b.grep}")` : '') };
      if (typeof where === 'string') {
        results.push({ ...row, outcome: 'not applied', note: where });
        continue;
      }
      if (tests.length === 0) {
        results.push({ ...row, outcome: 'survived', note: `none of its tests exist yet: ${b.tests.join(' ')}` });
        continue;
      }
      const path = join(tree, where.file);
      writeFileSync(path, where.text.replace(b.search, b.replace));
      try {
        process.stderr.write(`mutate: ${b.name} (${where.file}) ...`);
        const { status, out } = await mocha(tree, tests, b.grep, join(logs, `${b.name}.log`));
        // Caught means a test failed on an assertion; tests that did not even load caught nothing.
        const failed = /^\s+\d+ failing/m.test(out) && !/Exception during run/.test(out);
        const outcome = status === 0 ? 'survived' : failed ? 'caught' : 'not run';
        process.stderr.write(` ${outcome}\n`);
        const first = /^\s+1\) [^\n]*\n\s+([^\n]+?):?$/m.exec(out)?.[1];
        const note = [
          outcome === 'caught' && first ? `by "${first.length > 70 ? `${first.slice(0, 70)}…` : first}"` : '',
          outcome === 'not run' ? `the tests did not run (see ${b.name}.log)` : '',
          missing.length > 0 ? `not yet in the tree: ${missing.join(' ')}` : '',
        ];
        results.push({ ...row, outcome, note: note.filter(Boolean).join('; ') });
      } finally {
        writeFileSync(path, where.text);
      }
    }
    printTable(results);
    if (results.some((r) => r.outcome === 'not applied' || r.outcome === 'not run')) code = 2;
    else if (results.some((r) => r.outcome === 'survived')) code = 1;
  } finally {
    if (o.keep) process.stderr.write(`mutate: copy and logs kept in ${tmp}\n`);
    else rmSync(tmp, { recursive: true, force: true });
  }
  process.exitCode = code;
}

function printTable(results: readonly Result[]): void {
  const head = ['break', 'tests', 'caught/survived'];
  const body = results.map((r) => [r.name, r.tests, r.outcome + (r.note ? ` (${r.note})` : '')]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)];
  const caught = results.filter((r) => r.outcome === 'caught').length;
  process.stdout.write(`${out.join('\n')}\n${caught} of ${results.length} breaks caught\n`);
}

await main();
