// How an external agent is described before anything runs: the `--agent` flag's text split into
// argv, and the errors of a description that cannot be read. Pure: no file system, no process.
import { UserError } from '../../core/errors.js';

/** The `--agent` flag's text cannot be read as a command. */
export class AgentFlagError extends UserError {
  override name = 'AgentFlagError';
}

/** An agent's configuration asks for something it may not have (a refused variable). */
export class AgentConfigError extends UserError {
  override name = 'AgentConfigError';
}

const AGENT_NAME = /^([A-Za-z][A-Za-z0-9_.-]*)=/;
// Shell operators are not run (there is no shell); a command that uses one would silently pass it
// to the program as an argument, so it is refused unless quoted.
const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')']);

/**
 * Read `--agent "CMD ARGS"` or `--agent NAME="CMD ARGS"`. NAME is taken when the text before the
 * first `=` is a bare name (a letter, then letters, digits, `_`, `.`, `-`): so a command that
 * starts with `VAR=value` is read as agent VAR (quote it, `'VAR=value' cmd`, to keep it a word).
 * The rest is split into words as a POSIX shell would (single quotes, double quotes with `\`
 * escaping `$ \` " \\` and newline, `\` outside quotes) with no expansion of anything: `$HOME`,
 * `~` and `*` stay as written. Unquoted shell operators are refused. After `NAME=`, a value that
 * is one quoted word (`a="node x.mjs"` passed without a shell) is that word's text, split again.
 */
export function parseAgentFlag(value: string): { name: string | null; command: string[] } {
  const named = AGENT_NAME.exec(value);
  const name = named ? named[1]! : null;
  const text = named ? value.slice(named[0].length) : value;
  const label = name === null ? '--agent' : `--agent ${name}`;
  let command = splitWords(text, label);
  // `NAME="CMD ARGS"` that reached evalog with its quotes (no shell in between) reads as a shell
  // assignment would: the quoted value is the command's text.
  if (name !== null && command.length === 1 && /^['"]/.test(text)) command = splitWords(command[0]!, label);
  if (command.length === 0) throw new AgentFlagError(`${label}: no command given`);
  const empty = command.indexOf('');
  if (empty >= 0) throw new AgentFlagError(`${label}: word ${empty + 1} of the command is empty`);
  return { name, command };
}

function splitWords(text: string, label: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i += 1;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new AgentFlagError(`${label}: the command ends with a lone backslash`);
      // Backslash-newline joins lines and adds nothing, as in a shell.
      if (text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new AgentFlagError(`${label}: unterminated single quote in ${JSON.stringify(text)}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      const [quoted, next] = doubleQuoted(text, i + 1, label);
      word += quoted;
      inWord = true;
      i = next;
    } else if (OPERATORS.has(c)) {
      throw new AgentFlagError(`${label}: unquoted '${c}' (no shell runs the command; quote it, or run sh -c '...')`);
    } else {
      word += c;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The text of a double-quoted part starting after its `"`, and the index after its closing `"`. */
function doubleQuoted(text: string, start: number, label: string): [string, number] {
  let out = '';
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') return [out, i + 1];
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') out += next;
      i += 2;
    } else {
      out += c;
      i += 1;
    }
  }
  throw new AgentFlagError(`${label}: unterminated double quote in ${JSON.stringify(text)}`);
}
