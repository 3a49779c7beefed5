import { scriptedProtocols } from '../harness/external/protocols/index.js';
import { EXIT, InputError, type CliIO, type Command, intFlag, parseCommandArgs } from './io.js';
import {
  FAULT_KINDS,
  startScriptedModel,
  type FaultKind,
  type FaultRule,
  type LatencyOption,
  type OmitUsageOption,
  type Player,
} from '../providers/scripted/index.js';

const NAME = 'mock-server';

const HELP = `Usage: evalog mock-server [options]

Runs the scripted model: a deterministic OpenAI-compatible server on 127.0.0.1
(POST /v1/chat/completions, GET /v1/models, GET /_scripted/stats, POST /_scripted/reset),
and OpenAI Responses (POST /v1/responses) and Anthropic Messages (POST /v1/messages) by the
recording proxy's own translation onto chat completions, so it can stand for an endpoint that
speaks them natively (evalog run --endpoint-protocols responses,messages).
Its answers are scripted, not a model's. Prints the base URL, then serves until interrupted.

Options:
  --port N               port to listen on (default 0: a free port)
  --seed N               server seed; answers are a pure function of (request, seed) (default 0)
  --latency-ms N|MIN-MAX delay before each answer, fixed or drawn per request (default 0)
  --omit-usage MODE      never | always | RATE (0..1, chosen per request) (default never)
  --fault KIND[:RATE]    inject a fault, on every request or a deterministic fraction of them;
                         repeatable. KIND: ${FAULT_KINDS.join(', ')}
  --timeout-cap-ms N     how long a timeout fault holds a request (default 30000)
  -h, --help             show this help
`;

/** Builds the `mock-server` command, answering with the given suite players before the fallback. */
export function createMockServerCommand(players: Player[] = []): Command {
  return {
    name: NAME,
    summary: 'Run the scripted OpenAI-compatible model on loopback',
    help: HELP,
    run: (args, io) => run(args, io, players),
  };
}

/** `evalog mock-server` with only the built-in fallback player. */
export const mockServerCommand: Command = createMockServerCommand();

async function run(args: string[], io: CliIO, players: Player[]): Promise<number> {
  const { values } = parseCommandArgs(
    NAME,
    args,
    {
      port: { type: 'string' },
      seed: { type: 'string' },
      'latency-ms': { type: 'string' },
      'omit-usage': { type: 'string' },
      fault: { type: 'string', multiple: true },
      'timeout-cap-ms': { type: 'string' },
    },
    false,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const port = intFlag(NAME, 'port', values.port, 0, 0, 65535);
  const seed = intFlag(NAME, 'seed', values.seed, 0, 0, 2 ** 32 - 1);
  const timeoutCapMs = intFlag(NAME, 'timeout-cap-ms', values['timeout-cap-ms'], 30_000);
  const latencyMs = parseLatency(values['latency-ms']);
  const omitUsage = parseOmitUsage(values['omit-usage']);
  const faults = (values.fault ?? []).map(parseFault);

  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  try {
    // Responses and Messages too, by the recording proxy's own translation: an endpoint that speaks them natively.
    model = await startScriptedModel({ port, seed, players, latencyMs, omitUsage, faults, timeoutCapMs, protocols: scriptedProtocols() });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new InputError(`evalog ${NAME}: --port ${port} is already in use`, { cause: err });
    throw err;
  }
  io.stdout.write(`scripted model listening on ${model.url} (seed ${seed})\n`);
  io.stderr.write("answers are scripted, not a model's; stop with Ctrl-C\n");
  await untilAborted(io.signal);
  await model.close();
  const { requests, completed } = model.stats();
  io.stderr.write(`scripted model stopped after ${requests} request(s), ${completed} completed\n`);
  return EXIT.ok;
}

// Without a signal there is nothing to stop it but the end of the process, as for any server.
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function parseLatency(value: string | undefined): LatencyOption {
  const range = value === undefined ? null : /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(value);
  if (!range) return intFlag(NAME, 'latency-ms', value, 0);
  const [minMs, maxMs] = [Number(range[1]), Number(range[2])];
  if (minMs > maxMs) throw new InputError(`evalog ${NAME}: --latency-ms range ${value} has MIN above MAX`);
  return { minMs, maxMs };
}

function parseRate(flag: string, text: string): number {
  const rate = Number(text);
  if (text.trim() === '' || !(rate >= 0 && rate <= 1))
    throw new InputError(`evalog ${NAME}: --${flag} rate must be a number within 0..1, got ${JSON.stringify(text)}`);
  return rate;
}

function parseOmitUsage(value: string | undefined): OmitUsageOption {
  if (value === undefined || value === 'never' || value === 'always') return value ?? 'never';
  return parseRate('omit-usage', value);
}

function parseFault(value: string): FaultRule {
  const [kind, rate, ...rest] = value.split(':');
  if (!(FAULT_KINDS as readonly string[]).includes(kind ?? '') || rest.length > 0) {
    throw new InputError(`evalog ${NAME}: --fault must be KIND[:RATE] with KIND one of ${FAULT_KINDS.join(', ')}, got ${JSON.stringify(value)}`);
  }
  const rule: FaultRule = { kind: kind as FaultKind };
  if (rate !== undefined) rule.rate = parseRate('fault', rate);
  return rule;
}
