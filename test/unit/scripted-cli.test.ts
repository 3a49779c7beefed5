import { expect } from 'chai';
import OpenAI from 'openai';
import { PassThrough } from 'node:stream';
import { createMockServerCommand, mockServerCommand } from '../../src/cli/mock-server.js';
import { InputError, type CliIO } from '../../src/cli/io.js';

function makeIO(signal?: AbortSignal) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  stderr.resume();
  const io: CliIO = { stdout, stderr, env: {}, cwd: process.cwd(), ...(signal ? { signal } : {}) };
  // Resolves with the first whole line written to stdout.
  const firstLine = () =>
    new Promise<string>((resolve) => {
      const check = () => {
        const nl = out.indexOf('\n');
        if (nl >= 0) resolve(out.slice(0, nl));
        else stdout.once('data', () => setImmediate(check));
      };
      check();
    });
  return { io, firstLine, output: () => out };
}

describe('evalog mock-server (in-process)', () => {
  it('prints its URL, serves until aborted, then returns 0', async () => {
    const abort = new AbortController();
    const { io, firstLine } = makeIO(abort.signal);
    const running = mockServerCommand.run(['--seed', '5', '--latency-ms', '1-3', '--omit-usage', 'never'], io);
    const line = await firstLine();
    const m = /^scripted model listening on (http:\/\/127\.0\.0\.1:\d+\/v1) \(seed 5\)$/.exec(line);
    expect(m, line).to.not.equal(null);
    const client = new OpenAI({ baseURL: m![1], apiKey: 'scripted-no-key', maxRetries: 0, logLevel: 'off' });
    const res = await client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]?.message.content).to.match(/^Scripted reply \(seed 5\)/);
    abort.abort();
    expect(await running).to.equal(0);
  });

  it('answers with the players it was built with, and injects --fault', async () => {
    const abort = new AbortController();
    const { io, firstLine } = makeIO(abort.signal);
    const command = createMockServerCommand([() => ({ content: 'from the suite player' })]);
    const running = command.run(['--fault', 'no_usage:1', '--fault', 'truncated:0'], io);
    const url = /(http:\S+\/v1)/.exec(await firstLine())![1]!;
    const client = new OpenAI({ baseURL: url, apiKey: 'scripted-no-key', maxRetries: 0, logLevel: 'off' });
    const res = await client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]?.message.content).to.equal('from the suite player');
    expect(res.usage).to.equal(undefined);
    abort.abort();
    expect(await running).to.equal(0);
  });

  it('prints help', async () => {
    const { io, output } = makeIO();
    expect(await mockServerCommand.run(['--help'], io)).to.equal(0);
    expect(output()).to.match(/^Usage: evalog mock-server/);
    expect(mockServerCommand.help).to.equal(output());
  });

  it('rejects bad flags with an InputError naming the flag', async () => {
    const bad = async (args: string[], pattern: RegExp) => {
      const err = await mockServerCommand.run(args, makeIO(AbortSignal.abort()).io).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(InputError);
      expect((err as Error).message).to.match(pattern);
    };
    await bad(['--port', 'abc'], /--port/);
    await bad(['--port', '70000'], /--port/);
    await bad(['--seed', '-1'], /--seed/);
    await bad(['--omit-usage', 'sometimes'], /--omit-usage/);
    await bad(['--fault', 'gremlins'], /--fault/);
    await bad(['--fault', 'reset:2'], /--fault/);
    await bad(['--latency-ms', '9-3'], /--latency-ms/);
    await bad(['--bogus'], /bogus/);
    await bad(['extra'], /unexpected argument/i);
  });

  it('reports a port in use as bad input', async () => {
    const abort = new AbortController();
    const first = makeIO(abort.signal);
    const running = mockServerCommand.run([], first.io);
    const port = /:(\d+)\/v1/.exec(await first.firstLine())![1]!;
    const err = await mockServerCommand.run(['--port', port], makeIO(AbortSignal.abort()).io).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(InputError);
    expect((err as Error).message).to.match(/already in use/);
    abort.abort();
    expect(await running).to.equal(0);
  });
});
