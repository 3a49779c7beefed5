// The watch loop around a stand-in for `evalog run` (it writes the rows a run would): the argv each
// run gets (its own folder in the loop, the cache on unless the user chose), a refused run's one
// line with the loop going on, the flips reported against the last run that left results, the
// --json lines, and the end on abort with the last run's exit code. Real files, real waits.
import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { watchRun } from '../../src/cli/run-watch.js';
import { loopRunPath, runArgv, stemOf, watchArgs } from '../../src/cli/watch-argv.js';
import { InputError, type CliIO } from '../../src/cli/io.js';
import { tempDir } from '../support/cli.js';

const FAST = { pollMs: 50, debounceMs: 30, useFsWatch: true };

function sink() {
  const out = { text: '' };
  const stream = new Writable({
    write(chunk: Buffer | string, _e, done) {
      out.text += chunk.toString();
      done();
    },
  });
  return { out, stream };
}

describe('watch loop (evalog run --watch)', function () {
  this.timeout(30_000);

  describe('argv', () => {
    it('takes --watch and --out away, and adds the loop folder and the cache', () => {
      const a = watchArgs(['./evals/qa.suite.ts', '--watch', '--out=mine', '--data', 'cases.jsonl', '--json', '--', 'agent', '--flag'], {});
      expect(a).to.include({ parent: 'mine', stem: 'qa-suite', addCache: true, cacheOff: null, json: true, quiet: false, help: false });
      expect(a.base).to.deep.equal(['./evals/qa.suite.ts', '--data', 'cases.jsonl', '--json', '--', 'agent', '--flag']);
      expect(a.words).to.deep.equal(['./evals/qa.suite.ts', 'cases.jsonl']);
      expect(runArgv(a, 'mine/x-1')).to.deep.equal([
        './evals/qa.suite.ts',
        '--data',
        'cases.jsonl',
        '--json',
        '--out',
        'mine/x-1',
        '--cache',
        '--',
        'agent',
        '--flag',
      ]);
      expect(loopRunPath(a, '20261207-232000', 7)).to.equal(join('mine', 'qa-suite-20261207-232000-007'));
    });

    it("leaves the cache to the user's flag or variable, and off where run refuses it", () => {
      for (const flag of ['--no-cache', '--cache', '--cache=dir']) expect(watchArgs(['s.ts', '--watch', flag], {}).addCache, flag).to.equal(false);
      expect(watchArgs(['s.ts', '--watch'], { EVALOG_CACHE_DIR: 'c' }).addCache).to.equal(false);
      expect(watchArgs(['s.ts', '--watch', '--workers', '4', '--nats', 'u']).cacheOff).to.match(/--workers/);
      expect(watchArgs(['s.ts', '--watch', '--workers', 'inline']).addCache).to.equal(true);
      expect(watchArgs(['s.ts', '--watch', '--endpoint-protocols=responses']).cacheOff).to.match(/--endpoint-protocols/);
      expect(watchArgs(['dataset', '--watch'], {}).parent).to.equal('runs');
    });

    it('refuses --out without a folder; names folders by the suite', () => {
      expect(() => watchArgs(['s.ts', '--watch', '--out'], {})).to.throw(InputError, /--out needs a folder/);
      expect(() => watchArgs(['s.ts', '--out', '--watch'], {})).to.throw(InputError, /--out needs a folder/);
      expect(stemOf('dataset')).to.equal('dataset');
      expect(stemOf(null)).to.equal('watch');
      expect(stemOf('./--.ts')).to.equal('watch');
    });
  });

  describe('the loop', () => {
    let tmp: Awaited<ReturnType<typeof tempDir>>;
    beforeEach(async () => {
      tmp = await tempDir();
      await writeFile(join(tmp.dir, 'cases.jsonl'), 'v1\n');
    });
    afterEach(() => tmp.cleanup());

    /** A stand-in for `evalog run`: each call does what `plans` says, in order (rows: write them; error: throw it). */
    function standIn(plans: ({ rows: [string, boolean][]; code?: number } | { error: Error })[], onRun: (i: number) => Promise<void>) {
      const calls: string[][] = [];
      const runOnce = async (argv: string[]): Promise<number> => {
        const i = calls.length;
        calls.push(argv);
        const plan = plans[Math.min(i, plans.length - 1)]!;
        setTimeout(() => void onRun(i), 0);
        if ('error' in plan) throw plan.error;
        const out = resolve(tmp.dir, argv[argv.indexOf('--out') + 1]!);
        await mkdir(out, { recursive: true });
        const rows = plan.rows.map(([c, passed]) => ({ job_id: `${c}:default:1`, case_id: c, arm: 'default', repetition: 1, status: 'succeeded', passed }));
        await writeFile(join(out, 'rows.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n'));
        await writeFile(join(out, 'run.json'), JSON.stringify({ run_id: out.split('/').at(-1), suite: 'dataset', provenance: {}, config: {} }));
        return plan.code ?? 0;
      };
      return { calls, runOnce };
    }

    it('runs again on each save, keeps watching past a refused run, reports flips against the last run with results, and ends with the last exit code', async () => {
      const controller = new AbortController();
      const stdout = sink();
      const stderr = sink();
      const io: CliIO = { stdout: stdout.stream, stderr: stderr.stream, env: {}, cwd: tmp.dir, signal: controller.signal };
      const save = (text: string) => writeFile(join(tmp.dir, 'cases.jsonl'), text);
      const { calls, runOnce } = standIn(
        [
          {
            rows: [
              ['a', true],
              ['b', true],
            ],
          },
          { error: new InputError('evalog run: --data cases.jsonl: line 1 is not JSON') },
          {
            rows: [
              ['a', true],
              ['b', false],
            ],
            code: 0,
          },
          {
            rows: [
              ['a', true],
              ['b', false],
            ],
            code: 3,
          },
        ],
        async (i) => {
          // Each run over, the next save (after the loop listens), then Ctrl-C after the fourth.
          await new Promise((r) => setTimeout(r, 150));
          if (i < 3) await save(`v${i + 2}\n`);
          else controller.abort();
        },
      );
      const code = await watchRun(['dataset', '--data', 'cases.jsonl', '--watch'], io, runOnce, FAST);
      expect(code, "the last run's exit code").to.equal(3);
      expect(calls).to.have.length(4);
      expect(calls.map((c) => c.slice(-3))).to.satisfy((xs: string[][]) =>
        xs.every((x, i) => x[0] === '--out' && x[1]!.endsWith(`-00${i + 1}`) && x[2] === '--cache'),
      );
      expect(calls[0]!.slice(0, 3)).to.deep.equal(['dataset', '--data', 'cases.jsonl']);
      expect(stderr.out.text).to.include('evalog run: --data cases.jsonl: line 1 is not JSON\n');
      expect(stderr.out.text.match(/cases\.jsonl changed/g)).to.have.length(3);
      const reports = stdout.out.text.split('\n');
      expect(reports.filter((l) => l.startsWith('evalog watch: run'))).to.deep.equal([
        `evalog watch: run 1 (${calls[0]!.at(-2)}), exit 0`,
        `evalog watch: run 3 (${calls[2]!.at(-2)}), exit 0`,
        `evalog watch: run 4 (${calls[3]!.at(-2)}), exit 3`,
      ]);
      expect(stdout.out.text).to.include('  1/2 passed (50.0%), was 2/2 passed (100.0%); 1 flipped against run 1\n    now failing  b\n');
      expect(stdout.out.text).to.include('  1/2 passed (50.0%), was 1/2 passed (50.0%); no verdict flipped against run 3\n');
      expect(stderr.out.text).to.include('ended after 4 runs; exit 3');
    });

    it('--json prints one JSON line per run on stdout; --quiet drops the notices', async () => {
      const controller = new AbortController();
      const stdout = sink();
      const stderr = sink();
      const io: CliIO = { stdout: stdout.stream, stderr: stderr.stream, env: {}, cwd: tmp.dir, signal: controller.signal };
      const { runOnce } = standIn([{ rows: [['a', false]] }, { rows: [['a', true]] }], async (i) => {
        await new Promise((r) => setTimeout(r, 150));
        if (i === 0) await writeFile(join(tmp.dir, 'cases.jsonl'), 'v2\n');
        else controller.abort();
      });
      const code = await watchRun(['dataset', '--data=cases.jsonl', '--watch', '--json', '--quiet', '--no-cache', '--out', 'loop'], io, runOnce, FAST);
      expect(code).to.equal(0);
      const lines = stdout.out.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { watch: { run: number; dir: string; arms: { flipped: unknown }[] } });
      expect(lines.map((l) => l.watch.run)).to.deep.equal([1, 2]);
      expect(lines[1]!.watch.dir).to.match(/^loop\/dataset-\d{8}-\d{6}-002$/);
      expect(lines[1]!.watch.arms[0]!.flipped).to.deep.equal({ now_failing: [], now_passing: [{ case_id: 'a', repetition: 1 }] });
      expect(stderr.out.text).to.equal('');
    });

    it('refuses a loop with nothing to watch', async () => {
      const io: CliIO = { stdout: sink().stream, stderr: sink().stream, env: {}, cwd: tmp.dir };
      let ran = false;
      const attempt = watchRun(
        ['smoke', '--watch'],
        io,
        async () => {
          ran = true;
          return 0;
        },
        FAST,
      );
      await attempt.then(
        () => expect.fail('should refuse'),
        (err: unknown) =>
          expect(err)
            .to.be.instanceOf(InputError)
            .with.property('message')
            .that.match(/--watch found no file to watch/),
      );
      expect(ran).to.equal(false);
    });
  });
});
