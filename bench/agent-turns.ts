// Agent runs: does evalog's CPU per model call of an external agent grow with the conversation's
// length? Each job is an agent process (written here, plain fetch, no evalog import) that makes T
// calls through the job's recording proxy, each sending the whole conversation so far (T = 50 is
// the default `limits.modelCalls`), against `evalog mock-server` with 0 ms latency. evalog's own
// CPU is the whole run's (/usr/bin/time) minus what the agents report of theirs; per turn it is
// the difference between two lengths divided by the extra turns: flat if the turn from 25 to 50
// costs what the turn from 10 to 25 does.
// Run by hand: npx tsx bench/agent-turns.ts [--turns 10,25,50] [--cases 16] [--reps 3] [--concurrency 4] [--no-compile]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileForBench, EVALOG_JS } from './support/build.js';
import { measure, median, startMockServer, TIME, writeCases } from './support/measure.js';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '10,25,50' },
    cases: { type: 'string', default: '16' },
    reps: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    'no-compile': { type: 'boolean', default: false },
  },
});

// The agent: T calls, each with the conversation so far (the task's messages, then every reply
// and the case's question again); its last reply is its answer. It reports its own CPU to a file.
const AGENT = `
import { readFileSync, writeFileSync } from 'node:fs';
const [turns, cpuDir] = [Number(process.argv[2]), process.argv[3]];
const task = JSON.parse(readFileSync(process.env.EVALOG_TASK, 'utf8'));
const messages = [...task.messages];
const question = messages.filter((m) => m.role === 'user').at(-1);
let answer = '';
for (let t = 1; t <= turns; t += 1) {
  const res = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
    body: JSON.stringify({ model: task.model, messages }),
  });
  if (!res.ok) throw new Error('turn ' + t + ': HTTP ' + res.status + ' ' + (await res.text()));
  const reply = (await res.json()).choices[0].message;
  answer = reply.content ?? '';
  messages.push({ role: 'assistant', content: answer }, { role: 'user', content: question.content + ' (turn ' + (t + 1) + ')' });
}
writeFileSync(process.env.EVALOG_RESULT, answer);
const c = process.cpuUsage();
writeFileSync(cpuDir + '/' + process.pid + '.cpu', String((c.user + c.system) / 1e6));
`;

async function main(): Promise<void> {
  if (!TIME) throw new Error("bench/agent-turns.ts needs /usr/bin/time for the run's CPU");
  const turnsList = values.turns.split(',').map(Number);
  const cases = Number(values.cases);
  const reps = Number(values.reps);
  if (!values['no-compile']) await compileForBench();
  const work = await mkdtemp(join(tmpdir(), 'evalog-bench-agent-turns-'));
  const server = await startMockServer(EVALOG_JS, 0);
  process.stdout.write(
    `# bench/agent-turns.ts  ${new Date().toISOString()}  nproc=${cpus().length}  node ${process.version}  load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n# ${cases} cases, ${values.concurrency} in flight, one agent process a job\n`,
  );
  try {
    const data = join(work, 'cases.jsonl');
    writeCases(data, cases);
    const agent = join(work, 'agent.mjs');
    writeFileSync(agent, AGENT);
    const cpuOf = new Map<number, number[]>(turnsList.map((t) => [t, []]));
    for (let r = 0; r < reps; r += 1) {
      for (const turns of r % 2 === 0 ? turnsList : [...turnsList].reverse()) {
        const cpuDir = join(work, `cpu-${r}-${turns}`);
        await mkdir(cpuDir);
        const m = await measure(
          process.execPath,
          [
            EVALOG_JS,
            'run',
            'dataset',
            '--data',
            data,
            '--out',
            join(work, `run-${r}-${turns}`),
            '--concurrency',
            values.concurrency,
            '--base-url',
            server.url,
            '--model',
            'bench-model',
            '--agent',
            `node ${agent} ${turns} ${cpuDir}`,
          ],
          { ...process.env, EVALOG_API_KEY: 'bench' },
          work,
        );
        const files = readdirSync(cpuDir);
        if (files.length !== cases) throw new Error(`${turns} turns: ${files.length} of ${cases} agents reported their CPU`);
        const agentsCpu = files.reduce((sum, f) => sum + Number(readFileSync(join(cpuDir, f), 'utf8')), 0);
        const evalogCpu = m.cpu - agentsCpu;
        cpuOf.get(turns)!.push(evalogCpu);
        process.stdout.write(
          `  rep ${r + 1}  ${String(turns).padStart(3)} turns  ${m.wall.toFixed(2)} s wall  evalog ${evalogCpu.toFixed(2)} s cpu  agents ${agentsCpu.toFixed(2)} s cpu  ${m.maxRssMB.toFixed(0)} MB peak  load ${loadavg()[0]!.toFixed(2)}\n`,
        );
      }
    }
    process.stdout.write(`\nmedians of ${reps}\n| turns | evalog CPU s | per job | extra turns | CPU per extra turn ms |\n| --- | --- | --- | --- | --- |\n`);
    let prev: { turns: number; cpu: number } | null = null;
    for (const turns of turnsList) {
      const cpu = median(cpuOf.get(turns)!);
      const step = prev ? `${prev.turns} → ${turns} | ${(((cpu - prev.cpu) / (cases * (turns - prev.turns))) * 1000).toFixed(2)}` : '— | —';
      process.stdout.write(`| ${turns} | ${cpu.toFixed(2)} | ${(cpu / cases).toFixed(3)} | ${step} |\n`);
      prev = { turns, cpu };
    }
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
