// defineEval, the short form, end to end in real child processes on the scripted model: inline
// cases; a JSONL file found beside the suite file (not the cwd); two template arms × two models
// (`--model a --model b`); two scorers, each a check in rows.jsonl; replay matches every event; an
// edited data file is refused by resume and replay; a spec mistake is one line naming file:line;
// and the shipped example, examples/suite-short/, runs and replays as its README says.
import { expect } from 'chai';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiUrl, readJsonl, runEvalog, runKilledAfterJobs, tempDir, type CliResult } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

const API = JSON.stringify(apiUrl());
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// No real endpoint leaks in from the environment: the scripted model must play.
const OFFLINE = { EVALOG_BASE_URL: undefined, EVALOG_MODEL: undefined, EVALOG_API_KEY: undefined };

interface Row {
  case_id: string;
  arm: string;
  status: string;
  passed: boolean;
  checks: Record<string, boolean>;
  input: string;
  output: string;
}

// The scripted model answers "Reply with exactly: X" with X: the `echo` template passes equals, the
// `shout` one (X!) fails it but passes contains, so the two checks of a row differ by arm.
const FILE_SUITE = `import { contains, defineEval, equals } from ${API};
export default defineEval({
  name: 'echo-file',
  data: 'cases.jsonl',
  task: { echo: 'Reply with exactly: {{word}}', shout: 'Reply with exactly: {{word}}!' },
  scorers: [equals(), contains()],
});
`;
const CASES = `{"id": "one", "word": "alpha", "expected": "alpha"}
{"id": "two", "word": "beta", "expected": "beta"}
`;
const INLINE_SUITE = `import { defineEval, icontains } from ${API};
export default defineEval({
  name: 'echo-inline',
  data: [
    { input: 'Paris', expected: 'paris' },
    { id: 'second', input: 'Rome', expected: 'Oslo' },
  ],
  task: 'Reply with exactly: {{input}}',
  scorers: [icontains()],
});
`;

/** Exit 2 with exactly one line on stderr, matching `pattern`, and no stack. */
function expectOneLine(r: CliResult, pattern: RegExp): void {
  expect(r.code, r.stderr).to.equal(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).to.have.length(1);
  expect(r.stderr).not.to.match(/^\s+at /m);
  expect(lines[0]).to.match(pattern);
}

describe('defineEval: the short form of a suite (child processes, scripted model)', function () {
  this.timeout(180_000);
  let tmp: { dir: string; cleanup: () => Promise<void> };
  // Models as arms need an endpoint: evalog's scripted model served over HTTP (it answers any model id).
  let server: MockServerProcess;
  const evalog = (args: string[]) => runEvalog(args, { cwd: tmp.dir, env: { ...OFFLINE, EVALOG_BASE_URL: server.url } });
  const offline = (args: string[]) => runEvalog(args, { cwd: tmp.dir, env: OFFLINE });
  const rows = (run: string) => readJsonl<Row>(join(tmp.dir, run, 'rows.jsonl'));

  before(async () => {
    tmp = await tempDir('evalog-eval-');
    // The suite and its data sit in a subfolder; every command runs from the temp root.
    await mkdir(join(tmp.dir, 'evals'));
    await writeFile(join(tmp.dir, 'evals/file.ts'), FILE_SUITE);
    await writeFile(join(tmp.dir, 'evals/cases.jsonl'), CASES);
    await writeFile(join(tmp.dir, 'evals/inline.ts'), INLINE_SUITE);
    server = await startMockServer([], tmp.dir);
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  it('runs inline cases: ids by position unless given, the scorer a check of each row', async () => {
    const r = await offline(['run', 'evals/inline.ts', '--out', 'runs/inline']);
    expect(r.code, r.stderr).to.equal(0);
    const got = (await rows('runs/inline')).map((x) => [x.case_id, x.arm, x.output, x.checks]);
    expect(got).to.deep.equal([
      ['c1', 'default', 'Paris', { icontains: true }],
      ['second', 'default', 'Rome', { icontains: false }],
    ]);
  });

  it('reads a JSONL file beside the suite file, runs two templates × two models as four arms, and records both checks', async () => {
    const r = await evalog(['run', 'evals/file.ts', '--model', 'model-a', '--model', 'model.b', '--out', 'runs/file']);
    expect(r.code, r.stderr).to.equal(0);
    const all = await rows('runs/file');
    // Arms are named as the dataset suite names them: model__template, the model made id-safe.
    expect([...new Set(all.map((x) => x.arm))].sort()).to.deep.equal(['model-a__echo', 'model-a__shout', 'model-b__echo', 'model-b__shout']);
    expect(all).to.have.length(8);
    for (const x of all) {
      const shout = x.arm.endsWith('shout');
      expect(x.status).to.equal('succeeded');
      expect(x.checks, JSON.stringify(x)).to.deep.equal({ equals: !shout, contains: true });
      expect(x.passed).to.equal(!shout);
      expect(x.input).to.equal(`Reply with exactly: ${x.case_id === 'one' ? 'alpha' : 'beta'}${shout ? '!' : ''}`);
    }
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/file/run.json'), 'utf8')) as { config: { data: unknown; models: string[] } };
    // The data file is pinned by its path as the suite gives it and its sha256.
    expect(run.config.models).to.deep.equal(['model-a', 'model.b']);
    expect(run.config.data).to.have.property('path', 'cases.jsonl');
  });

  it('replays the run with every event matching', async () => {
    const r = await evalog(['replay', 'runs/file']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/every event matches \(8 jobs\)/);
  });

  it('refuses resume and replay once the data file was edited, naming it; resumes once it is restored', async () => {
    // A run stopped after two of its eight jobs: what resume goes on with.
    const killed = await runKilledAfterJobs(
      ['run', 'evals/file.ts', '--model', 'model-a', '--model', 'model.b', '--concurrency', '1', '--out', 'runs/killed'],
      { cwd: tmp.dir, env: { ...OFFLINE, EVALOG_BASE_URL: server.url } },
      2,
    );
    expect(killed.signal, killed.stderr).to.equal('SIGKILL');
    await appendFile(join(tmp.dir, 'evals/cases.jsonl'), '{"id": "three", "word": "gamma", "expected": "gamma"}\n');
    try {
      expectOneLine(await evalog(['resume', 'runs/killed']), /data file cases\.jsonl changed since the run recorded it/);
      expectOneLine(await evalog(['replay', 'runs/file']), /data file cases\.jsonl changed since the run recorded it/);
    } finally {
      await writeFile(join(tmp.dir, 'evals/cases.jsonl'), CASES);
    }
    const resumed = await evalog(['resume', 'runs/killed']);
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect(await rows('runs/killed')).to.have.length(8);
  });

  it('a spec mistake is one line naming the suite file and the field', async () => {
    await writeFile(
      join(tmp.dir, 'evals/bad.ts'),
      `import { defineEval } from ${API};\n\nexport default defineEval({ name: 'bad', data: [], task: '{{input}}' });\n`,
    );
    expectOneLine(await evalog(['run', 'evals/bad.ts', '--out', 'runs/bad']), /^evalog: suite file evals\/bad\.ts(:3)?: .*field data: the array has no cases/);
    await writeFile(
      join(tmp.dir, 'evals/fn.ts'),
      `import { defineEval } from ${API};\nexport default defineEval({ name: 'fn', data: [{ input: 'x' }], task: async () => 'y' });\n`,
    );
    expectOneLine(await evalog(['run', 'evals/fn.ts', '--out', 'runs/fn']), /evals\/fn\.ts(:2)?: .*field task: a function task is not supported yet/);
  });

  it('a case that lacks a template variable is refused before anything runs, naming the file and line', async () => {
    await writeFile(join(tmp.dir, 'evals/vars.ts'), FILE_SUITE.replace("name: 'echo-file'", "name: 'vars'").replace('{{word}}!', '{{word}} {{tone}}'));
    expectOneLine(await evalog(['run', 'evals/vars.ts', '--out', 'runs/vars']), /cases\.jsonl line 1: case one: prompt shout uses \{\{tone\}\}/);
  });
});

describe('examples/suite-short (child processes, from the repository root)', function () {
  this.timeout(180_000);
  let tmp: { dir: string; cleanup: () => Promise<void> };
  before(async () => {
    tmp = await tempDir('evalog-short-');
  });
  after(() => tmp?.cleanup());

  it('is at most 20 lines, runs offline on the scripted model, grades with two scorers, and replays', async () => {
    const source = await readFile(join(ROOT, 'examples/suite-short/suite.ts'), 'utf8');
    expect(source.trimEnd().split('\n').length).to.be.at.most(20);
    const out = join(tmp.dir, 'short');
    const r = await runEvalog(['run', 'examples/suite-short/suite.ts', '--out', out], { cwd: ROOT, env: OFFLINE });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('scripted model plays');
    const got = (await readJsonl<Row>(join(out, 'rows.jsonl'))).map((x) => [x.case_id, x.checks]);
    // The scripted model says Sydney for Australia, and a sentence for the largest planet (contains, not similar).
    expect(got).to.deep.equal([
      ['author-hamlet', { contains: true, similar: true }],
      ['capital-australia', { contains: false, similar: false }],
      ['capital-france', { contains: true, similar: true }],
      ['largest-planet', { contains: true, similar: false }],
    ]);
    const replayed = await runEvalog(['replay', out], { cwd: ROOT, env: OFFLINE });
    expect(replayed.code, replayed.stderr).to.equal(0);
    expect(replayed.stdout).to.match(/every event matches \(4 jobs\)/);
  });
});
