import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { UserError } from '../../src/core/errors.js';
import { AgentConfig, AgentConfigError, AgentFlagError, checkPassThrough, parseAgentFlag, passThroughRefusal } from '../../src/harness/agent-spec/index.js';
import { AgentCommandError, changedAgentFiles, resolveAgentCommand } from '../../src/harness/external/command.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, none was thrown');
}

async function rejected(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection, none came');
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('parseAgentFlag', () => {
  const words = (value: string) => parseAgentFlag(value).command;

  it('splits on blanks, without a name', () => {
    expect(parseAgentFlag('node examples/agents/node-agent.mjs')).to.deep.equal({ name: null, command: ['node', 'examples/agents/node-agent.mjs'] });
    expect(words('  a \t b\nc  ')).to.deep.equal(['a', 'b', 'c']);
  });

  it('takes NAME= only when the text before the first = is a bare name', () => {
    expect(parseAgentFlag('a="node agent.mjs --x"')).to.deep.equal({ name: 'a', command: ['node', 'agent.mjs', '--x'] });
    expect(parseAgentFlag('a=node agent.mjs --x')).to.deep.equal({ name: 'a', command: ['node', 'agent.mjs', '--x'] });
    expect(parseAgentFlag(`a='node "my agent.mjs"'`)).to.deep.equal({ name: 'a', command: ['node', 'my agent.mjs'] });
    expect(parseAgentFlag('a="node" x')).to.deep.equal({ name: 'a', command: ['node', 'x'] });
    expect(parseAgentFlag('"node x.mjs"')).to.deep.equal({ name: null, command: ['node x.mjs'] });
    expect(parseAgentFlag('v1.2-b_c=python3 p.py')).to.deep.equal({ name: 'v1.2-b_c', command: ['python3', 'p.py'] });
    expect(parseAgentFlag('node x.mjs --a=b')).to.deep.equal({ name: null, command: ['node', 'x.mjs', '--a=b'] });
    expect(parseAgentFlag('--opt=1 cmd').name).to.equal(null);
    expect(parseAgentFlag('1a=cmd').name).to.equal(null);
    // Documented: a command starting with VAR=... is read as a name; quoting keeps it a word.
    expect(parseAgentFlag('FOO=bar cmd')).to.deep.equal({ name: 'FOO', command: ['bar', 'cmd'] });
    expect(parseAgentFlag("'FOO=bar' cmd")).to.deep.equal({ name: null, command: ['FOO=bar', 'cmd'] });
  });

  it('quotes and escapes as a POSIX shell, with no expansion', () => {
    expect(words(`sh -c 'echo "$HOME" \\ x'`)).to.deep.equal(['sh', '-c', 'echo "$HOME" \\ x']);
    expect(words(`a "b c" "d\\"e" "f\\$g" "h\\\\i" "j\\k"`)).to.deep.equal(['a', 'b c', 'd"e', 'f$g', 'h\\i', 'j\\k']);
    expect(words(`a\\ b c\\'d \\"e`)).to.deep.equal(['a b', "c'd", '"e']);
    expect(words(`pre'mid'"post" x`)).to.deep.equal(['premidpost', 'x']);
    expect(words('a \\\nb')).to.deep.equal(['a', 'b']);
    expect(words('echo $HOME ~ * `x`')).to.deep.equal(['echo', '$HOME', '~', '*', '`x`']);
    expect(words('run \'|\' "&&" \\;')).to.deep.equal(['run', '|', '&&', ';']);
  });

  it('refuses what it cannot read, in one line naming --agent and the problem', () => {
    const cases: [string, RegExp][] = [
      ['', /^--agent: no command given$/],
      ['   ', /^--agent: no command given$/],
      ['a=', /^--agent a: no command given$/],
      ["node 'x", /^--agent: unterminated single quote/],
      ['b=node "x', /^--agent b: unterminated double quote/],
      ['node x\\', /^--agent: the command ends with a lone backslash$/],
      ["node '' x", /^--agent: word 2 of the command is empty$/],
      ['node a.mjs | tee log', /^--agent: unquoted '\|'/],
      ['cd x && node a', /^--agent: unquoted '&'/],
      ['node a > out', /^--agent: unquoted '>'/],
    ];
    for (const [value, message] of cases) {
      const err = thrown(() => parseAgentFlag(value));
      expect(err, value).to.be.instanceOf(AgentFlagError).and.instanceOf(UserError);
      expect(err.message, value).to.match(message);
      expect(err.message).not.to.include('\n');
    }
  });
});

describe('agent pass-through and config', () => {
  it('refuses evalog-set names, the endpoint and OpenAI names, and anything credential-like', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
      'OPENAI_ORG_ID',
      'EVALOG_API_KEY',
      'EVALOG_BASE_URL',
      'EVALOG_TASK',
      'PATH',
      'HOME',
      'openai_api_key',
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
    ])
      expect(passThroughRefusal(name), name).to.equal('set by evalog for every job');
    for (const name of [
      'ANTHROPIC_AUTH_TOKEN',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'HF_TOKEN',
      'Api_Key',
    ])
      expect(passThroughRefusal(name), name).to.equal('looks like a credential');
    for (const name of ['PYTHONPATH', 'NODE_PATH', 'TZ', 'MY_SETTING', 'KEYBOARD', 'TOKENIZER_DIR']) expect(passThroughRefusal(name), name).to.equal(null);
    expect(passThroughRefusal('1BAD')).to.equal('not a variable name');
  });

  it('checkPassThrough names the agent and the variable', () => {
    expect(() => checkPassThrough(['PYTHONPATH', 'TZ'], 'a')).not.to.throw();
    const err = thrown(() => checkPassThrough(['PYTHONPATH', 'OPENAI_API_KEY'], 'a'));
    expect(err).to.be.instanceOf(AgentConfigError).and.instanceOf(UserError);
    expect(err.message).to.equal('agent a: env may not pass OPENAI_API_KEY through (set by evalog for every job)');
  });

  it('AgentConfig is strict and checks names and limits', () => {
    const ok = { command: ['node', 'a.mjs'], cwd: 'agents', env: ['PYTHONPATH'], limits: { modelCalls: 5, tokens: null, timeLimitMs: 1000 } };
    expect(AgentConfig.parse(ok)).to.deep.equal(ok);
    expect(AgentConfig.parse({ command: ['x'] })).to.deep.equal({ command: ['x'] });
    const bad: unknown[] = [
      { command: [] },
      { command: [''] },
      { command: ['x'], extra: 1 },
      { command: ['x'], env: ['NOT A NAME'] },
      { command: ['x'], env: ['GITHUB_TOKEN'] },
      { command: ['x'], limits: { modelCalls: 0 } },
      { command: ['x'], limits: { tokens: 1.5 } },
      { command: ['x'], limits: { wall: 1 } },
    ];
    for (const value of bad) expect(AgentConfig.safeParse(value).success, JSON.stringify(value)).to.equal(false);
    const refused = AgentConfig.safeParse({ command: ['x'], env: ['GITHUB_TOKEN'] });
    expect(refused.error?.issues[0]?.message).to.equal('GITHUB_TOKEN may not be passed through (looks like a credential)');
  });
});

describe('resolveAgentCommand', () => {
  let dir: string;
  let bin: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-command-'));
    bin = join(dir, 'bin');
    mkdirSync(bin);
    mkdirSync(join(dir, 'agents'));
    writeFileSync(join(bin, 'myagent'), '#!/bin/sh\n');
    chmodSync(join(bin, 'myagent'), 0o755);
    writeFileSync(join(bin, 'notexec'), '#!/bin/sh\n');
    chmodSync(join(bin, 'notexec'), 0o644);
    writeFileSync(join(dir, 'agents', 'agent.mjs'), 'console.log(1)\n');
    writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(dir, 'run.sh'), 0o755);
    writeFileSync(join(dir, 'plain.sh'), '#!/bin/sh\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const spec = (command: string[]) => ({ command, cwd: dir, env: [] });

  it('finds a bare program on PATH (not hashed) and makes file arguments absolute, hashed as given', async () => {
    const r = await resolveAgentCommand(spec(['myagent', 'agents/agent.mjs', '--flag', 'agents', 'missing.txt']), { path: `/nonexistent:${bin}` });
    expect(r.argv).to.deep.equal([join(bin, 'myagent'), join(dir, 'agents/agent.mjs'), '--flag', 'agents', 'missing.txt']);
    expect(r.files).to.deep.equal([{ arg: 'agents/agent.mjs', sha256: sha(join(dir, 'agents/agent.mjs')) }]);
  });

  it('uses evalog PATH by default: node is found', async () => {
    const r = await resolveAgentCommand(spec(['node', join(dir, 'agents/agent.mjs')]));
    expect(r.argv[0]).to.match(/\/node$/);
    expect(r.files).to.deep.equal([{ arg: join(dir, 'agents/agent.mjs'), sha256: sha(join(dir, 'agents/agent.mjs')) }]);
  });

  it('a program with a slash is relative to cwd and hashed', async () => {
    const r = await resolveAgentCommand(spec(['./run.sh', 'x']), { path: '' });
    expect(r.argv).to.deep.equal([join(dir, 'run.sh'), 'x']);
    expect(r.files).to.deep.equal([{ arg: './run.sh', sha256: sha(join(dir, 'run.sh')) }]);
  });

  it('a program that cannot be run is one line naming the agent and the program', async () => {
    const cases: [string[], string][] = [
      [['nosuchagent', 'x'], 'agent b: program nosuchagent not found on PATH'],
      [['notexec'], 'agent b: program notexec not found on PATH'],
      [['./missing.sh'], `agent b: program ./missing.sh not found (looked at ${join(dir, 'missing.sh')})`],
      [['./agents'], `agent b: program ./agents is not a file (looked at ${join(dir, 'agents')})`],
    ];
    for (const [command, message] of cases) {
      const err = await rejected(resolveAgentCommand(spec(command), { agent: 'b', path: bin }));
      expect(err).to.be.instanceOf(AgentCommandError).and.instanceOf(UserError);
      expect(err.message).to.equal(message);
      expect((err as AgentCommandError).program).to.equal(command[0]);
    }
    const plain = await rejected(resolveAgentCommand(spec(['./plain.sh']), { agent: 'b' }));
    expect(plain.message).to.match(/^agent b: program \.\/plain\.sh is not executable/);
  });

  it('changedAgentFiles names a file whose contents changed or that is gone', async () => {
    const before = await resolveAgentCommand(spec(['./run.sh', 'agents/agent.mjs']));
    expect(changedAgentFiles(before.files, before.files)).to.deep.equal([]);
    writeFileSync(join(dir, 'agents', 'agent.mjs'), 'console.log(2)\n');
    const after = await resolveAgentCommand(spec(['./run.sh', 'agents/agent.mjs']));
    expect(changedAgentFiles(before.files, after.files)).to.deep.equal(['agents/agent.mjs']);
    expect(changedAgentFiles(before.files, [])).to.deep.equal(['./run.sh', 'agents/agent.mjs']);
  });
});
