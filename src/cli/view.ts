import { access, readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RunId } from '../events/index.js';
import { FileEventLog, runLogPaths, type EventLog } from '../log/index.js';
import { DEFAULT_MAX_RUNS, DEFAULT_VIEW_PORT, startViewServer, type DiscoverRuns } from '../view/index.js';
import { EXIT, InputError, type CliIO, type Command, intFlag, parseCommandArgs } from './io.js';
import { connectNats, NATS_HELP, natsOption, natsUrl } from './log-target.js';

const HELP = `Usage: evalog view [--port P] [--runs DIR] [--nats URL] [--host H] [--max-runs N]

Serves a web viewer of runs: the runs list, each run's summary, chart, rows and usage, each job's
timeline with its messages and artifact revisions, and a paired comparison of two arms. Running
runs update live from their event stream. Everything is served from this package (no network).
  --port P     port (default ${DEFAULT_VIEW_PORT}; 0 = a free one)
  --runs DIR   folder holding run folders of the embedded log (default: the current folder)
  --host H     address to listen on (default 127.0.0.1). Any non-loopback address requires a
               token: one is generated and printed once; send it as ?token=… or
               "Authorization: Bearer …".
  --max-runs N runs held in memory at most (default ${DEFAULT_MAX_RUNS}); the least recently viewed
               is released and read again when asked for. A running run whose page is open
               stays held while it is open.
${NATS_HELP}
`;

/** `evalog view`. */
export const viewCommand: Command = {
  name: 'view',
  summary: 'browse runs (live and finished) in a local web viewer',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('view', args, {
      port: { type: 'string' },
      runs: { type: 'string' },
      host: { type: 'string' },
      'max-runs': { type: 'string' },
      ...natsOption,
    });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length > 0) throw new InputError(`evalog view: unexpected argument ${JSON.stringify(positionals[0])} (see evalog view --help)`);
    const port = intFlag('view', 'port', values.port, DEFAULT_VIEW_PORT, 0, 65535);
    const maxRuns = intFlag('view', 'max-runs', values['max-runs'], DEFAULT_MAX_RUNS, 1, 100_000);
    const host = values.host ?? '127.0.0.1';
    if (host.trim() === '') throw new InputError('evalog view: --host must name an address');
    const url = natsUrl(values, io.env);
    if (url && values.runs !== undefined) throw new InputError('evalog view: --runs names embedded run folders; it cannot be combined with --nats');
    let log: EventLog;
    let discover: DiscoverRuns;
    if (url) {
      const nats = await connectNats(url, io.env);
      log = nats;
      discover = async () => (await nats.runs()).map((r) => r.runId);
    } else {
      const root = resolve(io.cwd, values.runs ?? '.');
      // The viewer only reads: it must not create the folder that FileEventLog.open would.
      if (
        !(await stat(root).then(
          (s) => s.isDirectory(),
          () => false,
        ))
      )
        throw new InputError(`evalog view: --runs ${root} is not a folder`);
      log = await FileEventLog.open({ root, pollIntervalMs: 100, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
      discover = () => runFolders(root);
    }
    try {
      const server = await startViewServer({
        log,
        discover,
        host,
        port,
        maxRuns,
        onError: (err) => io.stderr.write(`evalog view: ${(err as Error)?.stack ?? String(err)}\n`),
      }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL')
          throw new InputError(`evalog view: cannot listen on ${host}:${port} (${err.code})`);
        throw err;
      });
      // Printed once: the token is not stored anywhere, so this line is the only way in.
      io.stdout.write(`evalog view: ${server.url}${server.token ? `?token=${server.token}` : ''}\n`);
      io.stderr.write(
        `evalog view: showing ${url ? 'the runs of the NATS JetStream log' : `the run folders in ${resolve(io.cwd, values.runs ?? '.')}`}; Ctrl-C to stop\n`,
      );
      await new Promise<void>((done) => {
        if (!io.signal) return;
        if (io.signal.aborted) return done();
        io.signal.addEventListener('abort', () => done(), { once: true });
      });
      await server.close();
      return EXIT.ok;
    } finally {
      await log.close();
    }
  },
};

/** Sub-folders of `root` named like a run and holding an embedded log. */
async function runFolders(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const ids: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || !RunId.safeParse(e.name).success) continue;
    if (
      await access(runLogPaths(root, e.name).events).then(
        () => true,
        () => false,
      )
    )
      ids.push(e.name);
  }
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
