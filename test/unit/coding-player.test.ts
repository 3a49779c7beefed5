// The coding suite's scripted player decides from each chat request alone: the task's text, the
// tools offered, the tool results so far. Each conversation here is driven to its end with real
// effects: evalog's own tools run by the suite, or (for the tool shapes of Claude Code and Codex
// CLI) files and shell commands carried out in a temporary folder seeded with the case's files.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChatRequest, PlayerReply, ToolSpec } from '../../src/providers/scripted/index.js';
import {
  agentMessages,
  changesOf,
  codingPlayer,
  loadCodingCases,
  parentMessages,
  pointerBrief,
  readStatement,
  runWorkspaceTool,
  solution,
  WORKSPACE_TOOLS,
  workerMessages,
  type CodingCase,
} from '../../src/suites/coding/index.js';

const cases = new Map(loadCodingCases().map((c) => [c.id, c]));
const ctx = { rng: () => 0.5, seed: 0 };
const fn = (name: string, properties: Record<string, unknown>): ToolSpec => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties } },
});
const EVALOG_TOOLS = WORKSPACE_TOOLS.map((t) => ({
  type: 'function' as const,
  function: { name: t.name, description: t.description, parameters: t.parameters },
}));
const CLAUDE_TOOLS = [
  fn('Bash', { command: { type: 'string' }, description: { type: 'string' } }),
  fn('Glob', { pattern: { type: 'string' }, path: { type: 'string' } }),
  fn('Read', { file_path: { type: 'string' }, offset: { type: 'integer' } }),
  fn('Edit', { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } }),
  fn('Write', { file_path: { type: 'string' }, content: { type: 'string' } }),
];
const CODEX_TOOLS = [
  fn('exec_command', { cmd: { type: 'string' }, workdir: { type: 'string' } }),
  fn('write_stdin', { session_id: { type: 'number' }, chars: { type: 'string' } }),
  fn('view_image', { path: { type: 'string' } }),
];

type Execute = (name: string, args: Record<string, unknown>) => Promise<string> | string;

/** Plays a conversation to its final text; returns the replies' tool calls (name, arguments) and that text. */
async function drive(messages: readonly unknown[], tools: ToolSpec[], execute: Execute, steps = 12) {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const convo: unknown[] = [...messages];
  for (let i = 0; i < steps; i++) {
    const reply: PlayerReply | null = codingPlayer({ model: 'scripted', messages: convo, tools } as unknown as ChatRequest, ctx);
    if (reply === null) throw new Error('the player did not claim the request');
    if (!reply.toolCalls?.length) return { calls, answer: reply.content ?? '' };
    const toolCalls = reply.toolCalls.map((t, k) => ({ id: `call_${i}_${k}`, type: 'function' as const, function: { name: t.name, arguments: t.arguments } }));
    convo.push({ role: 'assistant', content: null, tool_calls: toolCalls });
    for (const t of toolCalls) {
      const args = JSON.parse(t.function.arguments) as Record<string, unknown>;
      calls.push({ name: t.function.name, args });
      convo.push({ role: 'tool', tool_call_id: t.id, content: await execute(t.function.name, args) });
    }
  }
  throw new Error('the conversation did not end');
}

/** evalog's own tools, run by the suite on the case, with the artifact carried from write to write. */
function suiteTools(c: CodingCase) {
  let artifact: string | null = null;
  const execute: Execute = async (name, args) => {
    const out = await runWorkspaceTool(name, JSON.stringify(args), { case: { id: c.id, data: c }, artifact, revision: 0 });
    if (out.artifact !== undefined) artifact = out.artifact;
    return out.result;
  };
  return { execute, changes: () => changesOf(artifact) };
}

/** A folder seeded with the case's files, and the effects of Claude Code's and Codex's tools in it. */
function folder(c: CodingCase) {
  const dir = mkdtempSync(join(tmpdir(), 'evalog-player-test-'));
  for (const [p, t] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), t);
  }
  const sh = (cmd: string) => {
    const r = spawnSync('/bin/sh', ['-c', cmd], { cwd: dir, encoding: 'utf8' });
    return `Process exited with code ${r.status}\nOutput:\n${r.stdout}${r.stderr}`;
  };
  const execute: Execute = (name, args) => {
    if (name === 'Read') {
      const text = readFileSync(String(args.file_path), 'utf8');
      return text
        .split('\n')
        .map((l, i) => `${i + 1}\t${l}`)
        .join('\n');
    }
    if (name === 'Write') {
      writeFileSync(String(args.file_path), String(args.content));
      return `File created successfully at: ${String(args.file_path)}`;
    }
    if (name === 'Bash') return sh(String(args.command));
    if (name === 'exec_command') return sh(String(args.cmd));
    if (name === 'shell') {
      const [program, ...rest] = args.command as string[];
      const r = spawnSync(program!, rest, { cwd: dir, encoding: 'utf8' });
      return `Exit code: ${r.status}\nOutput:\n${r.stdout}${r.stderr}`;
    }
    throw new Error(`unexpected tool ${name}`);
  };
  return { dir, execute, read: (p: string) => readFileSync(join(dir, p), 'utf8'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('coding suite: the scripted parent', () => {
  it("delegates the whole statement on the full arm, and the statement's goal and where the rest is on the pointer arm", () => {
    const c = cases.get('sum_numbers')!.data;
    const briefOf = (mode: 'full' | 'pointer') => {
      const reply = codingPlayer({ model: 'scripted', messages: parentMessages(c, mode) } as unknown as ChatRequest, ctx)!;
      expect(reply.toolCalls!.map((t) => t.name)).to.deep.equal(['task']);
      return JSON.parse(reply.toolCalls![0]!.arguments) as { mode: string; brief: string };
    };
    expect(briefOf('full')).to.deep.equal({ mode: 'full', brief: c.statement.trim() });
    const pointer = briefOf('pointer');
    expect(pointer).to.deep.equal({ mode: 'pointer', brief: pointerBrief(c.statement) });
    expect(pointer.brief).to.contain('src/sum.js').and.to.contain('TASK.md').and.not.to.contain('RULE');
  });

  it("leaves other suites' requests to their players", () => {
    expect(codingPlayer({ model: 'scripted', messages: [{ role: 'system', content: '[evalog:smoke:worker] price it' }] } as ChatRequest, ctx)).to.equal(null);
  });
});

describe("coding suite: the scripted worker with evalog's tools", function () {
  this.timeout(60_000);

  it('reads the file, writes code that follows the rule, runs the tests and answers in a line', async () => {
    const c = cases.get('sum_numbers')!.data;
    const tools = suiteTools(c);
    const { calls, answer } = await drive(workerMessages(c.statement), EVALOG_TOOLS, tools.execute);
    expect(calls.map((x) => x.name)).to.deep.equal(['read_file', 'write_file', 'run_tests']);
    expect(calls[0]!.args).to.deep.equal({ path: 'src/sum.js' });
    expect(tools.changes()['src/sum.js']).to.contain('return numbers.reduce((total, n) => total + n, 0);');
    expect(answer).to.equal('Wrote sum in src/sum.js following the rule. Tests: they pass.');
  });

  it('reads TASK.md first when its brief only points there', async () => {
    const c = cases.get('clamp_value')!.data;
    const { calls, answer } = await drive(workerMessages(pointerBrief(c.statement)), EVALOG_TOOLS, suiteTools(c).execute);
    expect(calls.map((x) => [x.name, x.args.path ?? null])).to.deep.equal([
      ['read_file', 'TASK.md'],
      ['read_file', 'src/clamp.js'],
      ['write_file', 'src/clamp.js'],
      ['run_tests', null],
    ]);
    expect(answer).to.match(/following the rule\. Tests: they pass\.$/);
  });

  it('writes a table of the examples for a rule it cannot parse, and says so', async () => {
    const c = cases.get('slugify_title')!.data;
    const tools = suiteTools(c);
    const { answer } = await drive(workerMessages(c.statement), EVALOG_TOOLS, tools.execute);
    expect(answer).to.contain('could not follow its rule').and.to.contain('Tests: they pass');
    const mod = (await import(`data:text/javascript,${encodeURIComponent(tools.changes()['src/slug.js']!)}`)) as { slugify(t: string): string };
    expect(mod.slugify('Hello World')).to.equal('hello-world');
    expect(() => mod.slugify('Something Else')).to.throw('no example');
  });

  it('changes nothing when the task names no function to write', async () => {
    const c = cases.get('fix_average')!.data;
    const tools = suiteTools(c);
    const { calls, answer } = await drive(workerMessages(c.statement), EVALOG_TOOLS, tools.execute);
    expect(calls.map((x) => [x.name, x.args.path])).to.deep.equal([
      ['read_file', 'TASK.md'],
      ['read_file', 'src/average.js'],
    ]);
    expect(tools.changes()).to.deep.equal({});
    expect(answer).to.contain('changed nothing');
  });
});

describe("coding suite: the scripted agent with a coding agent's own tools", function () {
  this.timeout(60_000);

  it("drives Claude Code's Read, Write and Bash with absolute paths from its working folder", async () => {
    const c = cases.get('reverse_words')!.data;
    const f = folder(c);
    try {
      const [system, user] = agentMessages(c, 'pointer');
      const messages: unknown[] = [
        { role: 'system', content: `You are Claude Code.\n - Primary working directory: ${f.dir}\n${system!.content as string}` },
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>today</system-reminder>' },
            { type: 'text', text: user!.content as string },
          ],
        },
      ];
      const { calls, answer } = await drive(messages, CLAUDE_TOOLS, f.execute);
      expect(calls.map((x) => x.name)).to.deep.equal(['Read', 'Read', 'Write', 'Bash']);
      expect(calls.slice(0, 3).map((x) => x.args.file_path)).to.deep.equal([`${f.dir}/TASK.md`, `${f.dir}/src/words.js`, `${f.dir}/src/words.js`]);
      expect(calls[3]!.args).to.deep.equal({ command: 'node --test --test-reporter=dot' });
      expect(f.read('src/words.js')).to.contain(".split(' ').reverse().join(' ')");
      expect(answer).to.equal('Wrote reverseWords in src/words.js following the rule. Tests: they pass.');
    } finally {
      f.done();
    }
  });

  it("drives Codex CLI's exec_command: cat to read, node to write, node --test to test", async () => {
    const c = cases.get('sum_numbers')!.data;
    const f = folder(c);
    try {
      const { calls, answer } = await drive(agentMessages(c, 'full'), CODEX_TOOLS, f.execute);
      expect(calls.map((x) => x.name)).to.deep.equal(['exec_command', 'exec_command', 'exec_command']);
      expect(calls.map((x) => String(x.args.cmd).split(' ').slice(0, 2).join(' '))).to.deep.equal(['cat src/sum.js', 'node -e', 'node --test']);
      expect(f.read('src/sum.js')).to.contain('return numbers.reduce');
      expect(execFileSync(process.execPath, ['--test', '--test-reporter=tap'], { cwd: f.dir, encoding: 'utf8' })).to.match(/# fail 0/);
      expect(answer).to.match(/Tests: they pass\.$/);
    } finally {
      f.done();
    }
  });

  it('drives a shell that takes an argv, and reports failing tests as they are', async () => {
    const c = cases.get('slugify_title')!.data;
    const f = folder(c);
    try {
      // The visible tests are changed so the examples-only function fails them: the answer must say so.
      writeFileSync(
        join(f.dir, 'test/slug.test.js'),
        "import assert from 'node:assert'; import { slugify } from '../src/slug.js'; assert.equal(slugify('x y'), 'x-y');\n",
      );
      const { calls, answer } = await drive(agentMessages(c, 'full'), [fn('shell', { command: { type: 'array', items: { type: 'string' } } })], f.execute);
      expect(calls.map((x) => (x.args.command as string[]).slice(0, 2).join(' '))).to.deep.equal(['cat src/slug.js', 'node -e', 'node --test']);
      expect(answer).to.contain('Tests: some fail.');
    } finally {
      f.done();
    }
  });
});

describe('coding suite: what the player reads from a statement', () => {
  it('writes working code for a rule it knows in a statement it has never seen', async () => {
    const s = readStatement('FUNCTION src/top.js export function top(values)\nRULE return the largest of values\nEXAMPLE top([1, 5, 2]) => 5\n');
    expect(s.fn).to.deep.equal({ path: 'src/top.js', name: 'top', params: ['values'] });
    const code = solution(s)!;
    expect(code.understood).to.equal(true);
    const mod = (await import(`data:text/javascript,${encodeURIComponent(code.source)}`)) as { top(v: number[]): number };
    expect(mod.top([3, 9, 4])).to.equal(9);
  });

  it('does not take a rule that names a word that is not a parameter', () => {
    const s = readStatement('FUNCTION src/s.js export function s(xs)\nRULE return the sum of numbers\nEXAMPLE s([1]) => 1\n');
    expect(solution(s)!.understood).to.equal(false);
  });
});
