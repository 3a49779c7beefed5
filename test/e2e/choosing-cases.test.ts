import { expect } from 'chai';
import { copyFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJsonl, runEvalog, runEvalogHere, tempDir } from '../support/cli.js';
import { completion, startRecordingEndpoint, type RecordingEndpoint } from '../support/recording-endpoint.js';

const QA = fileURLToPath(new URL('../../examples/qa.jsonl', import.meta.url));
const NO_ENDPOINT = { EVALOG_BASE_URL: undefined, OPENAI_BASE_URL: undefined, EVALOG_MODEL: undefined, OPENAI_API_KEY: undefined, EVALOG_API_KEY: undefined };

const absent = (path: string) =>
  stat(path).then(
    () => false,
    () => true,
  );

describe('evalog run: choosing cases and the sampling flags (CLI in process and in child processes, a recording HTTP server)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let endpoint: RecordingEndpoint;

  before(async () => {
    tmp = await tempDir();
    await copyFile(QA, join(tmp.dir, 'qa.jsonl'));
    endpoint = await startRecordingEndpoint(() => completion('an answer'));
  });
  after(async () => {
    await endpoint.close();
    await tmp.cleanup();
  });

  it('sends the flags sampling and records the chosen cases in run.json; replay plans the same jobs', async () => {
    const args = ['run', 'dataset', '--data', 'qa.jsonl', '--out', 'runs/flags', '--model', 'm-1', '--case', 'json-*', '--case', 'moon-?????*', '--limit', '3'];
    const tuning = ['--temperature', '0.25', '--max-tokens', '64', '--reasoning-effort', 'low', '--timeout', '7.5s', '--max-attempts', '1'];
    const r = await runEvalog([...args, ...tuning], { cwd: tmp.dir, env: { ...NO_ENDPOINT, EVALOG_BASE_URL: endpoint.url } });
    expect(r.code, r.stderr).to.equal(0);
    // Case order of the file: moon-landing, json-tokyo, json-mars, json-primes, moon-cat (too short for the glob); the first three.
    const chosen = ['moon-landing', 'json-tokyo', 'json-mars'];
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/flags/run.json'), 'utf8'));
    expect(run.config.cases).to.deep.equal(chosen);
    expect(run.config.caseSelection).to.deep.equal({ patterns: ['json-*', 'moon-?????*'], limit: 3 });
    expect(run.config.model).to.include({ temperature: 0.25, maxTokens: 64, reasoningEffort: 'low' });
    expect(run.config.provider).to.include({ timeoutMs: 7500, maxAttempts: 1 });
    const rows = await readJsonl<{ case_id: string }>(join(tmp.dir, 'runs/flags/rows.jsonl'));
    expect(rows.map((x) => x.case_id).sort()).to.deep.equal([...chosen].sort());
    const chats = endpoint.requests.filter((q) => q.path.endsWith('/chat/completions'));
    expect(chats).to.have.length(3);
    for (const q of chats) expect(q.body).to.deep.include({ model: 'm-1', temperature: 0.25, reasoning_effort: 'low' });
    for (const q of chats) expect(q.body!.max_tokens ?? q.body!.max_completion_tokens).to.equal(64);

    const replay = await runEvalogHere(['replay', 'runs/flags'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(3 jobs\)/);
  });

  it('--sample draws the same cases for the same seed and other cases for another seed', async () => {
    const sampled = async (out: string, seed: string) => {
      const r = await runEvalog(
        ['run', 'dataset', '--data', 'qa.jsonl', '--out', out, '--sample', '4', '--seed', seed, '--concurrency', seed === '1' ? '1' : '8'],
        {
          cwd: tmp.dir,
          env: NO_ENDPOINT,
        },
      );
      expect(r.code, r.stderr).to.equal(0);
      const run = JSON.parse(await readFile(join(tmp.dir, out, 'run.json'), 'utf8'));
      expect(run.config.caseSelection).to.deep.equal({ sample: 4 });
      expect(run.config.cases).to.have.length(4);
      return run.config.cases as string[];
    };
    const a = await sampled('runs/s1', '1');
    const seeds = ['2', '3', '4'];
    const others = await Promise.all(seeds.map((s, i) => sampled(`runs/s${i + 2}`, s)));
    expect(others.some((o) => o.join() !== a.join())).to.equal(true);
    // Same seed, another concurrency: the same draw.
    const again = await runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--out', 'runs/s1b', '--sample', '4', '--seed', '1', '--concurrency', '8'], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/s1b/run.json'), 'utf8')).config.cases).to.deep.equal(a);
  });

  it('refuses a glob that matches nothing, an unknown id and a bad flag value: exit 2, one line, nothing written', async () => {
    const cases: [string[], RegExp][] = [
      [['--case', 'nope-*'], /^evalog: case pattern "nope-\*" \(field cases, --case\) matches no case; known: /],
      [['--case', 'nope'], /^evalog: unknown case "nope" \(field cases\); known: /],
      [['--limit', '0'], /^evalog run: --limit must be between 1 and /],
      [['--temperature', '9'], /^evalog run: --temperature must be a number from 0 to 2, got 9/],
      [['--timeout', 'soon'], /^evalog run: --timeout must be a duration/],
    ];
    for (const [extra, message] of cases) {
      const r = await runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--out', 'runs/bad', ...extra], { cwd: tmp.dir, env: NO_ENDPOINT });
      expect(r.code, extra.join(' ')).to.equal(2);
      expect(r.stderr.trim().split('\n'), extra.join(' ')).to.have.length(1);
      expect(r.stderr.trim(), extra.join(' ')).to.match(message);
      expect(await absent(join(tmp.dir, 'runs/bad')), extra.join(' ')).to.equal(true);
    }
  });
});
