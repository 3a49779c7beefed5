import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Authenticator } from '@nats-io/transport-node';
import { RunId } from '../events/index.js';
import { FileEventLog } from '../log/file/index.js';
import type { RunTarget } from '../harness/suite/index.js';
import type { JetStreamEventLog } from '../log/jetstream/index.js';
import { InputError, type CliIO } from './io.js';
import { recordedFolder } from './run-folder.js';
import { natsUnreachable } from './nats-errors.js';

/** The `--nats` flag shared by every command that reads or writes a log. */
export const natsOption = { nats: { type: 'string' } } as const;

/** Help line for `--nats`. */
export const NATS_HELP = `  --nats URL            use NATS JetStream as the event log (or EVALOG_NATS_URL); <run> is then a run id.
                        Credentials come from EVALOG_NATS_USER/EVALOG_NATS_PASS, EVALOG_NATS_TOKEN or
                        EVALOG_NATS_CREDS (a creds file), never from flags.`;

/** Where a run's events live and where its outputs go (the suite contract's type). */
export type { RunTarget } from '../harness/suite/index.js';

/** The NATS URL from the flag or environment, or null for the embedded log. */
export function natsUrl(values: { nats?: string }, env: CliIO['env']): string | null {
  const url = values.nats ?? env.EVALOG_NATS_URL ?? null;
  if (url !== null && !/^(nats|tls|wss?):\/\/|^[\w.-]+:\d+$/.test(url))
    throw new InputError(`--nats must be a NATS URL such as nats://127.0.0.1:4222, got ${JSON.stringify(url)}`);
  return url;
}

/** Connects to JetStream with credentials from the environment only; a server that cannot be reached is bad input naming the URL. */
export async function connectNats(url: string, env: CliIO['env']): Promise<JetStreamEventLog> {
  // The NATS client is loaded by commands given --nats alone: an embedded run never pays for it.
  const [nats, { JetStreamEventLog }] = await Promise.all([import('@nats-io/transport-node'), import('../log/jetstream/index.js')]);
  const authenticator = authenticatorFrom(env, nats);
  try {
    return await JetStreamEventLog.connect({ servers: url, connection: { authenticator, maxReconnectAttempts: -1 } });
  } catch (err) {
    throw natsUnreachable(url, err) ?? err;
  }
}

type Authenticators = Pick<typeof import('@nats-io/transport-node'), 'credsAuthenticator' | 'tokenAuthenticator' | 'usernamePasswordAuthenticator'>;

function authenticatorFrom(
  env: CliIO['env'],
  { credsAuthenticator, tokenAuthenticator, usernamePasswordAuthenticator }: Authenticators,
): Authenticator | undefined {
  if (env.EVALOG_NATS_CREDS) {
    let creds: Uint8Array;
    try {
      creds = readFileSync(env.EVALOG_NATS_CREDS);
    } catch (err) {
      throw new InputError(`cannot read the NATS creds file named by EVALOG_NATS_CREDS: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    return credsAuthenticator(creds);
  }
  if (env.EVALOG_NATS_TOKEN) return tokenAuthenticator(env.EVALOG_NATS_TOKEN);
  if (env.EVALOG_NATS_USER) return usernamePasswordAuthenticator(env.EVALOG_NATS_USER, env.EVALOG_NATS_PASS ?? '');
  return undefined;
}

/**
 * Opens the log of an existing run: `<run>` is a run folder (embedded) or a run id (NATS, with the
 * outputs going to `--out` or `runs/<runId>`). `readOnly`: an embedded log refuses every write.
 */
export async function openRunTarget(
  command: string,
  run: string,
  values: { nats?: string; out?: string },
  io: CliIO,
  requireLog = true,
  readOnly = false,
): Promise<RunTarget> {
  const url = natsUrl(values, io.env);
  if (url) {
    const ok = RunId.safeParse(run);
    if (!ok.success) throw new InputError(`evalog ${command}: with --nats, name a run id: ${JSON.stringify(run)} is not one (${ok.error.issues[0]!.message})`);
    const log = await connectNats(url, io.env);
    return { runId: run, dir: resolve(io.cwd, values.out ?? join('runs', run)), log, kind: 'nats' };
  }
  const { dir, root, runId } = await recordedFolder(command, run, io.cwd, requireLog);
  const log = await FileEventLog.open({
    root,
    readOnly,
    runFolders: { [runId]: dir },
    onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`),
  });
  return { runId, dir, log, kind: 'embedded' };
}
