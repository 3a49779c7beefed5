// Mocha's spec reporter plus the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Just above that line it repeats each failure on one "FAILED: <full title> — <message>" line,
// because CI keeps only the tail of a long run, where mocha's own failure list has scrolled away.
// Above both it lists the slowest test files (the time of their hooks and tests), where the
// suite's minutes go, and the files that used the most CPU (measured by cpu-hooks.cjs in each
// worker): on a shared machine wall time depends on the neighbours, CPU time does not.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_END, EVENT_HOOK_END } = Mocha.Runner.constants;
const { readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const SLOWEST = 12;

/** The table of `perFile` (file → seconds), slowest first, under `title`; empty without entries. */
function table(title, perFile) {
  const slow = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  const total = [...perFile.values()].reduce((a, b) => a + b, 0);
  if (!slow.length) return '';
  return `\n${title} (of ${total.toFixed(0)} s):\n${slow.map(([f, t]) => `${t.toFixed(1).padStart(7)} s  ${f}`).join('\n')}\n`;
}

/** The CPU seconds per file that the workers' hooks appended to `path` (nothing if none ran). */
function cpuByFile(path) {
  const cpu = new Map();
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return cpu;
  }
  for (const line of text.split('\n').filter(Boolean)) {
    const { file, cpu: seconds } = JSON.parse(line);
    cpu.set(file, (cpu.get(file) ?? 0) + seconds);
  }
  return cpu;
}

const oneLine = (text) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

class EvalogReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    // Set before the workers are forked (the runner forks them when it starts), so they inherit it.
    const cpuFile = join(tmpdir(), `evalog-test-cpu-${process.pid}.jsonl`);
    process.env.EVALOG_TEST_CPU_FILE = cpuFile;
    // Each file's time is the sum of its tests' and hooks' durations: with --parallel, files run
    // side by side and their events arrive in bursts, so the time between events says nothing.
    const seconds = new Map();
    const add = (runnable) => {
      if (!runnable?.file || typeof runnable.duration !== 'number') return;
      const file = relative(process.cwd(), runnable.file);
      seconds.set(file, (seconds.get(file) ?? 0) + runnable.duration / 1000);
    };
    runner.on(EVENT_TEST_END, add);
    runner.on(EVENT_HOOK_END, add);
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      const file = test.file ? ` [${relative(process.cwd(), test.file)}]` : '';
      failures.push(`FAILED: ${oneLine(test.fullTitle())}${file} — ${oneLine(err?.message)}`);
    });
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats ?? {};
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      const cpu = cpuByFile(cpuFile);
      rmSync(cpuFile, { force: true });
      const tables = table('slowest files', seconds) + table('most CPU (user + system, with their child processes)', cpu);
      const recap = failures.length ? `\n${failures.join('\n')}\n` : '';
      process.stdout.write(`${tables}${recap}\n${s.passes ?? 0} passed, ${s.failures ?? 0} failed${skipped}\n`);
    });
  }
}
module.exports = EvalogReporter;
