import { expect } from 'chai';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import type { EventLog } from '../../src/log/index.js';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { collect, runEvalog, runEvalogHere, startEvalog, tempDir } from '../support/cli.js';
import { startNatsServer } from '../support/nats-server.js';

interface Mode {
  name: string;
  setup(dir: string): Promise<{ args: string[]; run: string; open(): Promise<EventLog>; stop(): Promise<void> }>;
}

const MODES: Mode[] = [
  {
    name: 'embedded log',
    async setup(dir) {
      return { args: [], run: 'runs/w', open: () => FileEventLog.open({ root: join(dir, 'runs') }), stop: async () => {} };
    },
  },
  {
    name: 'JetStream log',
    async setup() {
      const nats = await startNatsServer();
      return { args: ['--nats', nats.url], run: 'w', open: () => JetStreamEventLog.connect({ servers: nats.url }), stop: () => nats.stop() };
    },
  },
];

for (const mode of MODES) {
  describe(`evalog watch (${mode.name}, child processes)`, function () {
    this.timeout(180_000);

    it('started before, during and after a run, shows every event exactly once, in order', async () => {
      const tmp = await tempDir();
      const m = await mode.setup(tmp.dir);
      try {
        const watch = (extra: string[] = []) => collect(startEvalog(['watch', m.run, '--json', ...m.args, ...extra], { cwd: tmp.dir }));
        const before = watch(['--wait']);
        await new Promise((r) => setTimeout(r, 500));
        const run = startEvalog(['run', 'smoke', '--out', 'runs/w', '--repetitions', '3', '--verbose', ...m.args], { cwd: tmp.dir });
        let during: ReturnType<typeof watch> | null = null;
        run.stderr!.on('data', (d: Buffer) => {
          if (!during && /^job /m.test(d.toString())) during = watch();
        });
        const ran = await collect(run);
        expect(ran.code, ran.stderr).to.equal(0);
        const after = await watch();

        const log = await m.open();
        const logged: number[] = [];
        for await (const e of log.read('w')) logged.push(e.seq);
        await log.close();
        for (const [name, result] of [
          ['before', await before],
          ['during', await during!],
          ['after', after],
        ] as const) {
          expect(result.code, `${name}: ${result.stderr}`).to.equal(0);
          const seqs = result.stdout
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as { seq: number }).seq);
          expect(seqs, `watch started ${name} the run`).to.deep.equal(logged);
        }
        const lines = await runEvalogHere(['watch', m.run, '--type', 'JobSucceeded', ...m.args], { cwd: tmp.dir });
        expect(lines.stdout.trim().split('\n')).to.have.length(24);
        expect(lines.stdout).to.match(/JobSucceeded\s+passed=(true|false)/);
      } finally {
        await m.stop();
        await tmp.cleanup();
      }
    });
  });
}

describe('evalog watch into a pipe that closes (child processes)', function () {
  this.timeout(120_000);

  it('ends quietly with exit 0 when its reader goes away (`evalog watch … | head`)', async () => {
    const tmp = await tempDir();
    try {
      const r = await runEvalog(['run', 'smoke', '--out', 'runs/p'], { cwd: tmp.dir });
      expect(r.code, r.stderr).to.equal(0);
      const child = startEvalog(['watch', 'runs/p'], { cwd: tmp.dir });
      // Like `head -1`: read the first chunk, then close the read end of the pipe.
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      child.stdout!.destroy();
      const done = await collect(child);
      expect(done.code, done.stderr).to.equal(0);
      expect(done.stderr).to.not.match(/EPIPE|at /);
    } finally {
      await tmp.cleanup();
    }
  });
});
