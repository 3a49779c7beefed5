// Root hooks that measure each test file's CPU time (user + system, its own process and the child
// processes it waited for: agents, servers, compilers), for the reporter's table. The suite is
// CPU-bound on a shared machine, where wall time says more about the neighbours than the file.
// A file's share is the CPU its worker used since the previous file ended, so loading (tsx
// transpiling the file and what it imports) counts towards the file that needed it.
// In parallel mode (npm test) each file is a root suite of its own; a serial run of several files
// has one root, so its table names only the first file, with the whole run's CPU.
// The reporter names where to append (EVALOG_TEST_CPU_FILE, set before the workers start); without
// it nothing is measured.
const { appendFileSync, readFileSync } = require('node:fs');
const { relative } = require('node:path');

/** Seconds of CPU used by this process and its reaped descendants. */
function cpuSeconds() {
  try {
    // /proc/self/stat: after the command's ")" come state, ..., utime (14), stime, cutime, cstime (17).
    const text = readFileSync('/proc/self/stat', 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks / 100;
  } catch {
    // No /proc (not Linux): this process alone.
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

let mark = cpuSeconds();

/** The test file a root suite ran: its first suite's or test's. */
function fileOf(root) {
  const child = root?.suites?.find((s) => s.file) ?? root?.tests?.find((t) => t.file);
  return child?.file;
}

exports.mochaHooks = {
  afterAll() {
    const out = process.env.EVALOG_TEST_CPU_FILE;
    const now = cpuSeconds();
    const file = fileOf(this.test?.parent);
    if (out && file) appendFileSync(out, `${JSON.stringify({ file: relative(process.cwd(), file), cpu: now - mark })}\n`);
    mark = now;
  },
};
