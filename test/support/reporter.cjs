// Mocha's spec reporter plus the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Just above that line it repeats each failure on one "FAILED: <full title> — <message>" line,
// because CI keeps only the tail of a long run, where mocha's own failure list has scrolled away.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

const oneLine = (text) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

class EvalogReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      const file = test.file ? ` [${require('node:path').relative(process.cwd(), test.file)}]` : '';
      failures.push(`FAILED: ${oneLine(test.fullTitle())}${file} — ${oneLine(err?.message)}`);
    });
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats ?? {};
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      const recap = failures.length ? `\n${failures.join('\n')}\n` : '';
      process.stdout.write(`${recap}\n${s.passes ?? 0} passed, ${s.failures ?? 0} failed${skipped}\n`);
    });
  }
}
module.exports = EvalogReporter;
