import { loadAllPlugins, runBinding, type RunBinding } from '../app/index.js';
import type { Command } from './io.js';

/** A suite-supplied help text as lines of a command's help: each ends in a newline; none when the text is empty. */
export function helpLines(text: string): string {
  return text === '' ? '' : `${text}\n`;
}

/**
 * A command that binds recorded runs (resume, retry, replay, worker) with the registry's binding:
 * every plugin is loaded when it runs, since any recorded run may be of any suite and the flags it
 * parses are every suite's binding flags. Its `help` names the bindings of the plugins loaded so far
 * (its own `--help` loads them all first).
 */
export function withRegistryBinding(commandFor: (binding: RunBinding) => Command): Command {
  const now = () => commandFor(runBinding());
  const { name, summary } = now();
  return {
    name,
    summary,
    get help() {
      return now().help;
    },
    async run(args, io) {
      await loadAllPlugins();
      return now().run(args, io);
    },
  };
}
