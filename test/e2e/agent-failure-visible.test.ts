// A failed external agent's side of the story, where a user looks: `evalog show --failed` prints
// the end of what the agent wrote to stderr and stdout (bounded, control characters escaped), and
// the run's last lines count the agent_failed jobs and name the command that shows them. Real agent
// processes (tiny Node scripts written here) on the built-in scripted model, evalog in process.
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CliResult, readJsonl, runEvalogHere, tempDir } from '../support/cli.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

const NODE_AGENT = fileURLToPath(new URL('../../examples/agents/node-agent.mjs', import.meta.url));

// Each writes a distinctive line where a real failure would (a route the agent got wrong), with
// ANSI escapes that would clear and repaint the terminal if they reached it raw.
const FAIL = `process.stdout.write('partial answer\\n');
process.stderr.write('connecting to the model\\n\\x1b[2J\\x1b[31mboom: 404 no such route /v1/chat/completionz\\x1b[0m\\n');
process.exit(1);
`;
// 100 000 lines on stderr (far over the 256 KiB evalog keeps), 5 000 short ones on stdout (kept whole), then exit 1.
const FLOOD = `let s = '';
for (let i = 0; i < 100000; i++) s += 'flood line ' + i + '\\n';
process.stderr.write(s);
let o = '';
for (let i = 0; i < 5000; i++) o += 'out ' + i + '\\n';
process.stdout.write(o + 'stdout ends here\\n');
process.exitCode = 1; // not process.exit(): that would drop what the pipes have not taken yet

`;
const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => `${line(i)}\n`).join('');
const FLOOD_ERR_BYTES = lines(100_000, (i) => `flood line ${i}`).length;
const FLOOD_OUT_BYTES = lines(5000, (i) => `out ${i}`).length + 'stdout ends here\n'.length;
// Prints why it is stuck, then never ends: evalog kills it at the time limit.
const HANG = `process.stderr.write('hang: waiting on a lock that never frees\\n');
setInterval(() => {}, 1000);
`;

describe('a failed agent is visible: evalog show --failed and the run end line (CLI in process, real agent processes)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let run: CliResult;
  before(async () => {
    tmp = await tempDir();
    await writeFile(join(tmp.dir, 'fail.mjs'), FAIL);
    await writeFile(join(tmp.dir, 'flood.mjs'), FLOOD);
    await writeFile(join(tmp.dir, 'hang.mjs'), HANG);
    run = await runEvalogHere(
      ['run', 'smoke', '--agent', `node ${join(tmp.dir, 'fail.mjs')}`, '--case', 'fruit_basket', '--repetitions', '1', '--out', 'runs/f'],
      {
        cwd: tmp.dir,
      },
    );
  });
  after(() => tmp.cleanup());

  it('the run ends naming how many jobs ended agent_failed and the command that shows why', () => {
    expect(run.code, run.stderr).to.equal(3);
    const dir = join(tmp.dir, 'runs/f');
    expect(run.stderr).to.include(`evalog: 2 jobs ended agent_failed: see \`evalog show ${dir} --failed\` for the end of the agent's stderr and stdout\n`);
    // It is the last line: after the count of jobs that ended in errors.
    expect(run.stderr.trimEnd().split('\n').at(-1)).to.match(/^evalog: 2 jobs ended agent_failed/);
  });

  it('evalog show --failed prints the stderr line that holds the cause, with its escapes made harmless', async () => {
    const r = await runEvalogHere(['show', 'runs/f', '--failed'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('boom: 404 no such route /v1/chat/completionz');
    expect(r.stdout).to.match(/^ {2}agent: {4}exited with code 1$/m);
    expect(r.stdout).to.match(/^ {2}stderr: {3}connecting to the model$/m);
    expect(r.stdout).to.include('\\x1b[2J\\x1b[31mboom: 404');
    expect(r.stdout).to.match(/^ {2}stdout: {3}partial answer$/m);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(r.stdout, 'no raw control character reaches the terminal').to.not.match(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(r.stdout.match(/boom: 404/g)).to.have.length(2); // both arms' jobs
    expect(r.stdout).to.match(/2 of 2 jobs did not pass\n$/);
  });

  it('floods are shown bounded, a time limit is shown too, and a job whose agent answered gets no agent fields', async () => {
    const agents = {
      flood: { command: ['node', join(tmp.dir, 'flood.mjs')] },
      hang: { command: ['node', join(tmp.dir, 'hang.mjs')], limits: { timeLimitMs: 1500 } },
      control: { command: ['node', NODE_AGENT] },
    };
    await writeFile(join(tmp.dir, 'agents.json'), JSON.stringify({ agents }));
    const r = await runEvalogHere(['run', 'smoke', '--config', 'agents.json', '--case', 'fruit_basket', '--repetitions', '1', '--out', 'runs/m'], {
      cwd: tmp.dir,
    });
    expect(r.code, r.stderr).to.equal(3);
    // The hang is graded (its time limit is no agent failure): one job counted, in the singular.
    expect(r.stderr).to.include(`evalog: 1 job ended agent_failed: see \`evalog show ${join(tmp.dir, 'runs/m')} --failed\``);
    const rows = await readJsonl(join(tmp.dir, 'runs/m/rows.jsonl'));
    const job = (arm: string) => String(rows.find((x) => x.arm === arm)?.job_id);

    const flood = await runEvalogHere(['show', 'runs/m', '--job', job('flood')], { cwd: tmp.dir });
    expect(flood.code, flood.stderr).to.equal(0);
    const stderr = block(flood.stdout, 'stderr');
    expect(stderr[0]).to.match(new RegExp(`^… \\(\\d+ earlier lines not shown; ${FLOOD_ERR_BYTES} bytes written, only the first 256 KiB kept\\)$`));
    expect(stderr.slice(1)).to.have.length(20);
    // The kept part ends where the record stopped, inside a line; the ones before it are whole.
    expect(
      stderr.slice(1, -1).every((l) => /^flood line \d+$/.test(l)),
      stderr.join('\n'),
    ).to.equal(true);
    const stdout = block(flood.stdout, 'stdout');
    expect(stdout[0]).to.equal(`… (4981 earlier lines not shown; ${FLOOD_OUT_BYTES} bytes written)`);
    expect(stdout.slice(1)).to.deep.equal([...Array.from({ length: 19 }, (_, i) => `out ${4981 + i}`), 'stdout ends here']);
    // 1.7 MB written: at most 4 KiB of it shown (and the note); the output field is the rows' cut answer.
    expect(Buffer.byteLength(stderr.join('\n')), 'stderr shown').to.be.below(4096 + 120);
    expect(Buffer.byteLength(flood.stdout), 'all that show printed').to.be.below(12_000);

    const hang = await runEvalogHere(['show', 'runs/m', '--job', job('hang')], { cwd: tmp.dir });
    expect(hang.stdout).to.match(/^ {2}agent: {4}killed at the time limit \(limits\.timeLimitMs\)$/m);
    expect(hang.stdout).to.match(/^ {2}stderr: {3}hang: waiting on a lock that never frees$/m);
    expect(hang.stdout).to.match(/^ {2}stdout: {3}\(empty\)$/m);

    const control = await runEvalogHere(['show', 'runs/m', '--job', job('control')], { cwd: tmp.dir });
    expect(control.code, control.stderr).to.equal(0);
    expect(control.stdout).to.not.match(/^ {2}(agent|stderr|stdout):/m);
  });

  describe('on NATS JetStream', () => {
    let nats: NatsServerHandle;
    before(async () => {
      nats = await startNatsServer();
    });
    after(() => nats?.stop());

    it('evalog show --nats reads the agent output from the JetStream blob store, and the end line names the run id', async () => {
      const r = await runEvalogHere(
        [
          'run',
          'smoke',
          '--agent',
          `node ${join(tmp.dir, 'fail.mjs')}`,
          '--case',
          'fruit_basket',
          '--repetitions',
          '1',
          '--out',
          'runs/agentnats',
          '--nats',
          nats.url,
        ],
        { cwd: tmp.dir },
      );
      expect(r.code, r.stderr).to.equal(3);
      expect(r.stderr).to.include('evalog: 2 jobs ended agent_failed: see `evalog show agentnats --nats URL --failed`');
      const s = await runEvalogHere(['show', 'agentnats', '--nats', nats.url, '--failed'], { cwd: tmp.dir });
      expect(s.code, s.stderr).to.equal(0);
      expect(s.stdout.match(/boom: 404 no such route \/v1\/chat\/completionz/g)).to.have.length(2);
    });
  });
});

/** The lines of one labelled field of `evalog show`'s output: its first line's text and the indented lines under it. */
function block(out: string, label: string): string[] {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`  ${label}:`));
  if (at === -1) throw new Error(`no ${label} field in:\n${out}`);
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((l) => !l.startsWith(' '.repeat(12)) || l.trim() === '');
  return [lines[at]!.slice(12), ...rest.slice(0, end === -1 ? rest.length : end).map((l) => l.slice(12))];
}
