// How the scripted player acts on a workspace with whatever tools a request offers, chosen by the
// tools' shapes: evalog's own (`read_file`/`write_file`/`run_tests`, maybe behind an MCP prefix
// such as `mcp__evalog__`), a coding agent's file tools (Claude Code's `Read`/`Write` with an
// absolute `file_path`, and `Bash` for commands), or a shell alone (Codex CLI's `shell` with an
// argv, `exec_command` with a command line, and `apply_patch`).
import type { ToolSpec } from '../../providers/scripted/index.js';
import type { PlayerToolCall } from '../../providers/scripted/index.js';

/** What the player wants done. */
export type Action = { kind: 'read'; path: string } | { kind: 'write'; path: string; content: string } | { kind: 'test' };

/** The tools the player found, by role; each null when the request offers none for it. */
export interface Toolbox {
  read: ((path: string) => PlayerToolCall) | null;
  write: ((path: string, content: string) => PlayerToolCall) | null;
  test: (() => PlayerToolCall) | null;
}

const KNOWN_SHELLS = new Set(['Bash', 'shell', 'exec_command', 'local_shell']);

type Props = Record<string, { type?: unknown } | undefined>;

const propsOf = (t: ToolSpec): Props => (t.function.parameters?.properties ?? {}) as Props;
const named = (t: ToolSpec, base: string) => t.function.name === base || t.function.name.endsWith(`__${base}`);
const call = (name: string, args: unknown): PlayerToolCall => ({ name, arguments: JSON.stringify(args) });

/** The toolbox of a request's tools; `cwd` (when the request names it) makes paths absolute for tools that want them so. */
export function toolboxOf(tools: readonly ToolSpec[], cwd: string | null): Toolbox {
  const abs = (path: string) => (cwd === null ? path : `${cwd.replace(/\/$/, '')}/${path}`);
  // The first tool of a shape; among several, one with a well-known name (Bash, shell, exec_command).
  const find = (ok: (t: ToolSpec, p: Props) => boolean) => {
    const fits = tools.filter((t) => ok(t, propsOf(t)));
    return (fits.find((t) => KNOWN_SHELLS.has(t.function.name)) ?? fits[0])?.function.name ?? null;
  };
  // A coding agent's own file tools come first: its shell and tests then see what it wrote.
  const fileWrite = find((t, p) => 'file_path' in p && 'content' in p && /write/i.test(t.function.name));
  const fileRead = find((t, p) => 'file_path' in p && !('content' in p) && /read/i.test(t.function.name));
  const argv = find((_t, p) => p.command?.type === 'array');
  const line = find((_t, p) => (p.command?.type === 'string' || p.cmd?.type === 'string') && !('file_path' in p));
  const lineKey = line !== null && 'cmd' in propsOf(tools.find((t) => t.function.name === line)!) ? 'cmd' : 'command';
  const hasShell = argv !== null || line !== null;
  const shell = (words: string[]): PlayerToolCall => (argv !== null ? call(argv, { command: words }) : call(line!, { [lineKey]: words.map(quote).join(' ') }));
  const ours = (base: string) => tools.find((t) => named(t, base))?.function.name ?? null;
  const [readFile, writeFile, runTests] = [ours('read_file'), ours('write_file'), ours('run_tests')];
  const patch = ours('apply_patch');

  const read = fileRead !== null ? (p: string) => call(fileRead, { file_path: abs(p) }) : readFile !== null ? (p: string) => call(readFile, { path: p }) : null;
  const write =
    fileWrite !== null
      ? (p: string, c: string) => call(fileWrite, { file_path: abs(p), content: c })
      : writeFile !== null
        ? (p: string, c: string) => call(writeFile, { path: p, content: c })
        : null;
  const viaShell = fileWrite === null && writeFile === null && hasShell;
  return {
    read: read ?? (hasShell ? (p) => shell(['cat', p]) : null),
    write:
      write ?? (viaShell ? (p, c) => shell(['node', '-e', WRITE_SCRIPT, p, c]) : patch !== null ? (p, c) => call(patch, { input: addFilePatch(p, c) }) : null),
    // Evalog's run_tests sees only what its own write_file wrote: it goes with that tool. A reporter
    // named outright (node:test's default is TAP on Node 20 off a terminal, `spec` on Node 24), and
    // `dot`: TAP and spec print each test's duration, which the agent then sends back to the model,
    // so a resumed or replayed agent's request would differ from its record; dot prints none on a
    // pass (one `.` per test) and `✖` on a failure.
    test: runTests !== null && fileWrite === null ? () => call(runTests, {}) : hasShell ? () => shell(['node', '--test', '--test-reporter=dot']) : null,
  };
}

/** The tool call of an action, or null when no tool does it. */
export function callOf(box: Toolbox, a: Action): PlayerToolCall | null {
  switch (a.kind) {
    case 'read':
      return box.read?.(a.path) ?? null;
    case 'write':
      return box.write?.(a.path, a.content) ?? null;
    case 'test':
      return box.test?.() ?? null;
  }
}

/** What an earlier tool call of the conversation did, read back from its name and arguments. */
export function actionOfCall(name: string, args: string): Action['kind'] {
  // Writes first: a file's content may hold any words, `--test` among them.
  if (/write|apply_patch/i.test(name) || args.includes('writeFileSync')) return 'write';
  if (/run_tests$/.test(name) || args.includes('--test')) return 'test';
  return 'read';
}

// Writes argv[2] to the path argv[1], making its folder: the shell route of a write, one argv.
const WRITE_SCRIPT =
  "const fs=require('fs'),path=require('path');fs.mkdirSync(path.dirname(process.argv[1]),{recursive:true});fs.writeFileSync(process.argv[1],process.argv[2]);";

function addFilePatch(path: string, content: string): string {
  const lines = content.endsWith('\n') ? content.slice(0, -1).split('\n') : content.split('\n');
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines.map((l) => `+${l}`), '*** End Patch', ''].join('\n');
}

/** A word as POSIX sh reads it back: single-quoted unless it is plainly safe. */
export function quote(word: string): string {
  return /^[\w./=:@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
