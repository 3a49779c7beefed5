// Suites from the user's own file, end to end in real processes: a small suite written into a temp
// folder runs offline on the scripted model with the player it exports; run.json records the file's
// relative path and sha256; replay passes; resume, replay and workers refuse once the file changed
// or is gone (naming it); rebuild of a suite without its own report needs no code; every bad file
// is one line naming it, exit 2, no stack.
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { apiUrl, readJsonl, runEvalog, startEvalog, tempDir, type CliResult } from '../support/cli.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

/** The parts of run.json these tests read. */
type RunJson = { suite: string; provenance: { suite_file: unknown } };
const API = apiUrl();
const ZOD = import.meta.resolve('zod');

/** A two-arm agent suite with one tool, written as a user would (imports by URL: the temp folder has no node_modules). */
const SUITE = `import { z } from ${JSON.stringify(ZOD)};
import { baseConfigShape, defineSuite, defineTool, parseToolArguments, toolError, toolResult, type Player } from ${JSON.stringify(API)};

type Sum = { a: number; b: number };
const Config = z.object({ ...baseConfigShape }).strict();
const ANSWER = defineTool({ name: 'answer', description: 'Save the sum.', properties: { value: { type: 'string' } } });
const TASK = defineTool({ name: 'task', description: 'Delegate the sum.', properties: { brief: { type: 'string' } } });

/** Plays both agents of the suite on the scripted model. */
export const player: Player = (request) => {
  const system = String(request.messages[0]?.content ?? '');
  const user = String(request.messages[1]?.content ?? '');
  if (system.startsWith('[adder:parent]')) return { content: null, toolCalls: [{ name: 'task', arguments: JSON.stringify({ brief: user }) }] };
  if (!system.startsWith('[adder:worker]')) return null;
  if (request.messages.at(-1)?.role === 'tool') return { content: 'DONE' };
  const [, a, b] = /(\\d+) \\+ (\\d+)/.exec(user)!;
  return { content: null, toolCalls: [{ name: 'answer', arguments: JSON.stringify({ value: String(Number(a) + Number(b)) }) }] };
};

const suite = defineSuite({
  name: 'adder',
  description: 'A parent delegates a sum to a worker that saves it with a tool',
  shape: 'agent',
  configSchema: Config,
  defaults: {
    repetitions: 1, concurrency: 2, seed: 1, orderSeed: 1, cases: null, model: { temperature: 0, maxTokens: 256 },
    worker: { turnCap: 4, timeLimitMs: 60_000 }, provider: { timeoutMs: 10_000, maxAttempts: 2, backoffMs: 10, maxBackoffMs: 100, maxRetryAfterMs: 60_000 },
  },
  prepare: async () => ({ cases: [{ id: 'small', data: { a: 2, b: 3 } as Sum }, { id: 'large', data: { a: 40, b: 2 } as Sum }] }),
  arms: () => ['plain', 'terse'],
  agent: {
  parentRequest: (c, arm) => ({ messages: [{ role: 'system', content: \`[adder:parent] Delegate (\${arm}).\` }, { role: 'user', content: \`\${c.data.a} + \${c.data.b}\` }], tools: [TASK] }),
  acceptDelegation: (calls) => {
    const args = calls.length === 1 && calls[0]!.name === 'task' ? parseToolArguments(calls[0]!.arguments) : null;
    return typeof args?.brief === 'string' ? { ok: true, mode: 'task', brief: args.brief } : { ok: false, reason: 'parent_no_task', message: 'expected one task call' };
  },
  workerRequest: (_c, _arm, brief) => ({ messages: [{ role: 'system', content: '[adder:worker] Add, then save with answer.' }, { role: 'user', content: brief }], tools: [ANSWER] }),
  runTool: (name, raw) => {
    const args = parseToolArguments(raw);
    return name === 'answer' && typeof args?.value === 'string' ? toolResult('saved', args.value) : toolError(\`bad call of \${name}\`);
  },
  },
  grade: (c, work) => ({ checks: [{ checkId: 'sum', visibility: 'hidden', passed: work.final === String(c.data.a + c.data.b), detail: String(work.final) }], firstRevisionPassed: null }),
});
export default suite;
`;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Exit 2 with exactly one line on stderr that names `file`, and no stack. */
function expectOneLineNaming(r: CliResult, file: string, pattern?: RegExp): void {
  expect(r.code, r.stderr).to.equal(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).to.have.length(1);
  expect(lines[0]).to.include(file);
  expect(r.stderr).not.to.match(/^\s+at /m);
  if (pattern) expect(lines[0]).to.match(pattern);
}

describe("suites from the user's file", function () {
  this.timeout(180_000);
  let tmp: { dir: string; cleanup: () => Promise<void> };
  const FILE = 'suites/adder.ts';
  const path = () => join(tmp.dir, FILE);
  const evalog = (args: string[]) => runEvalog(args, { cwd: tmp.dir });

  before(async () => {
    tmp = await tempDir('evalog-suite-file-');
    await mkdir(join(tmp.dir, 'suites'));
    await writeFile(path(), SUITE);
  });
  after(() => tmp?.cleanup());

  it('runs offline on the scripted model with the player the file exports, and writes the four files', async () => {
    const r = await evalog(['run', FILE, '--out', 'runs/first']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('scripted model plays');
    for (const f of ['rows.jsonl', 'summary.json', 'usage.json', 'run.json']) expect(r.stdout).to.include(f);
    const rows = await readJsonl(join(tmp.dir, 'runs/first/rows.jsonl'));
    expect(rows).to.have.length(4);
    expect(
      rows.every((row) => row.passed === true),
      JSON.stringify(rows),
    ).to.equal(true);
    const summary: unknown = JSON.parse(await readFile(join(tmp.dir, 'runs/first/summary.json'), 'utf8'));
    expect(JSON.stringify(summary)).to.include('plain').and.include('terse');
    JSON.parse(await readFile(join(tmp.dir, 'runs/first/usage.json'), 'utf8'));
  });

  it("records the file's path relative to the run's folder and its sha256 in run.json", async () => {
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/first/run.json'), 'utf8')) as RunJson;
    expect(run.suite).to.equal('adder');
    expect(run.provenance.suite_file).to.deep.equal({ path: FILE, sha256: sha256(await readFile(path())), report: false });
  });

  it('replays with every event matching', async () => {
    const r = await evalog(['replay', 'runs/first']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/every event matches \(4 jobs\)/);
  });

  it('refuses resume and replay of a run whose suite file was edited or is gone (exit 2, naming the file); rebuild needs no suite code', async () => {
    await cp(join(tmp.dir, 'runs/first'), join(tmp.dir, 'runs/copy'), { recursive: true });
    const original = await readFile(path());
    try {
      await appendFile(path(), '// edited after the run\n');
      expectOneLineNaming(await evalog(['resume', 'runs/copy']), FILE, /changed since the run started/);
      expectOneLineNaming(await evalog(['replay', 'runs/copy']), FILE, /changed since the run started/);
      await rename(path(), `${path()}.away`);
      expectOneLineNaming(await evalog(['resume', 'runs/copy']), FILE, /is gone/);
      // The suite has no report of its own: its outputs are the generic ones, derived from the log alone.
      const rebuilt = await evalog(['rebuild', 'runs/copy', '--out', 'runs/rebuilt']);
      expect(rebuilt.code, rebuilt.stderr).to.equal(0);
      expect(await readFile(join(tmp.dir, 'runs/rebuilt/rows.jsonl'), 'utf8')).to.equal(await readFile(join(tmp.dir, 'runs/first/rows.jsonl'), 'utf8'));
    } finally {
      await writeFile(path(), original);
    }
    // Restored byte for byte, the run is accepted again.
    const resumed = await evalog(['resume', 'runs/copy']);
    expect(resumed.code, resumed.stderr).to.equal(0);
  });

  describe('bad input: one line naming the file, exit 2', () => {
    const cases: [string, string, string | null, RegExp][] = [
      ['a file that does not exist', 'suites/missing.ts', null, /does not exist/],
      ['a file with no default export', 'suites/no-default.ts', 'export const x: number = 1;\n', /has no default export/],
      [
        'a default export that is not a suite (.mjs)',
        'suites/not-a-suite.mjs',
        'export default { name: "x" };\n',
        /default export is not a suite: field description/,
      ],
      [
        'a file that throws on import (.mts)',
        'suites/throws.mts',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's source text, with a template literal the imported file evaluates
        'const broken: string = "x";\nthrow new Error(`cannot start ${broken}\\nsecond line`);\nexport default {};\n',
        /importing it threw Error: cannot start x$/,
      ],
      ['a file that does not parse (.js)', 'suites/syntax.js', 'export default {\n', /importing it threw \w*Error: .*(Unexpected|Expected)/],
      [
        'a TypeScript file that does not parse',
        'suites/broken.ts',
        'const x: number = ;\nexport default x;\n',
        /importing it threw \w*Error: .*Unexpected.*\(line 1, column \d+\)$/,
      ],
      [
        'a suite named like a built-in one',
        'suites/smoke.ts',
        SUITE.replace("name: 'adder'", "name: 'smoke'"),
        /field name: "smoke" is a built-in suite's name/,
      ],
    ];
    for (const [label, file, text, pattern] of cases) {
      it(label, async () => {
        if (text !== null) await writeFile(join(tmp.dir, file), text);
        expectOneLineNaming(await evalog(['run', file, '--out', `runs/bad-${label.length}`]), file, pattern);
      });
    }
  });

  describe('workers', () => {
    let nats: NatsServerHandle;
    before(async () => {
      nats = await startNatsServer();
    });
    after(() => nats?.stop());

    it("run the jobs of a suite file's run in a pool (--workers 2) with its player", async () => {
      const r = await evalog(['run', FILE, '--nats', nats.url, '--workers', '2', '--out', 'runs/pooled']);
      expect(r.code, r.stderr).to.equal(0);
      const rows = await readJsonl(join(tmp.dir, 'runs/pooled/rows.jsonl'));
      expect(rows.map((row) => row.passed)).to.deep.equal([true, true, true, true]);
    });

    it('refuse the jobs of a run whose suite file changed since it started, naming the file', async () => {
      const original = await readFile(path());
      const children: ChildProcess[] = [];
      try {
        const coordinator = startEvalog(['run', FILE, '--nats', nats.url, '--workers', 'external', '--out', 'runs/scaled'], { cwd: tmp.dir });
        children.push(coordinator);
        await waitForLine(coordinator, /are queued on/);
        await appendFile(path(), '// edited while the run is queued\n');
        const worker = startEvalog(['worker', '--nats', nats.url, '--suite', FILE, '--lease', '5'], { cwd: tmp.dir });
        children.push(worker);
        const line = await waitForLine(worker, /cannot run scaled /);
        expect(line)
          .to.include(FILE)
          .and.match(/changed since the run started/);
      } finally {
        for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
        await writeFile(path(), original);
      }
    });
  });
});

/** Resolves with the first stderr line of `child` that matches (rejects if it exits first). */
function waitForLine(child: ChildProcess, re: RegExp, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${re} within ${timeoutMs} ms; got:\n${buffer}`)), timeoutMs);
    const onData = (d: Buffer) => {
      buffer += d.toString();
      const hit = buffer.split('\n').find((l) => re.test(l));
      if (hit) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        resolve(hit);
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before a line matching ${re}; got:\n${buffer}`));
    });
  });
}
