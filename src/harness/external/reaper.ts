// No agent process may outlive evalog. Agents run in their own process groups (so a time limit
// kills their children too), which also means a Ctrl-C at the terminal does not reach them and
// nothing kills them when evalog dies. Two guards: on a normal exit, evalog kills every live group
// itself; when evalog is killed (SIGKILL, a signal it does not handle), a small watchdog process
// sees its stdin pipe close and kills the groups evalog last told it about.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

// The watchdog: reads `+PGID` / `-PGID` lines; at end of input (evalog gone) kills what is left.
// It ignores terminal signals, so a Ctrl-C that stops evalog cannot stop it first.
const WATCHDOG = `
const groups = new Set();
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl = pending.indexOf('\\n');
  while (nl >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    const pgid = Number(line.slice(1));
    if (line[0] === '+') groups.add(pgid); else groups.delete(pgid);
    nl = pending.indexOf('\\n');
  }
});
const end = () => {
  for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch {} }
  process.exit(0);
};
process.stdin.on('end', end);
process.stdin.on('error', end);
`;

const live = new Set<number>();
let watchdog: ChildProcess | null = null;
let hooked = false;

/** SIGKILL a process group. Never throws: a group already gone (ESRCH) needs nothing more. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* ESRCH: gone already; EPERM cannot happen for a group evalog started, and nothing could be done */
  }
}

/** Count `pgid` as a live agent group until `releaseGroup`: it is killed if evalog ends first. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const g of live) killGroup(g);
    });
  }
  tell(`+${pgid}`);
}

/** The group's agent has ended and its group was killed: stop watching it. */
export function releaseGroup(pgid: number): void {
  if (live.delete(pgid)) tell(`-${pgid}`);
}

function tell(line: string): void {
  const dog = watchdog ?? startWatchdog();
  if (dog?.stdin?.writable) dog.stdin.write(`${line}\n`);
}

function startWatchdog(): ChildProcess | null {
  try {
    // Its own group (detached) so terminal signals miss it; no inherited environment, so no
    // NODE_OPTIONS adds anything; unref'd so it never keeps evalog alive.
    const dog = spawn(process.execPath, ['-e', WATCHDOG], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: {} });
    dog.on('error', () => {
      watchdog = null; // the exit hook still covers a normal exit
    });
    dog.on('exit', () => {
      watchdog = null;
    });
    dog.stdin?.on('error', () => {
      /* the watchdog died; the exit hook still covers a normal exit */
    });
    dog.unref();
    (dog.stdin as Socket | null)?.unref();
    watchdog = dog;
    // A watchdog started again (the first one died) learns every group still live.
    for (const g of live) dog.stdin?.write(`+${g}\n`);
    return dog;
  } catch {
    return null;
  }
}
