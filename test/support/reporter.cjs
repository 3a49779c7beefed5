// Mocha's spec reporter plus the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Just above that line it repeats each failure on one "FAILED: <full title> — <message>" line,
// because CI keeps only the tail of a long run, where mocha's own failure list has scrolled away.
// Above both it lists the slowest test files (the time of their hooks and tests), where the
// suite's minutes go.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_END, EVENT_HOOK_END } = Mocha.Runner.constants;
const { relative } = require('node:path');
const SLOWEST = 12;

const oneLine = (text) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

class EvalogReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
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
      const slow = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
      const total = [...seconds.values()].reduce((a, b) => a + b, 0);
      const table = slow.length
        ? `\nslowest files (of ${total.toFixed(0)} s):\n${slow.map(([f, t]) => `${t.toFixed(1).padStart(7)} s  ${f}`).join('\n')}\n`
        : '';
      const recap = failures.length ? `\n${failures.join('\n')}\n` : '';
      process.stdout.write(`${table}${recap}\n${s.passes ?? 0} passed, ${s.failures ?? 0} failed${skipped}\n`);
    });
  }
}
module.exports = EvalogReporter;
