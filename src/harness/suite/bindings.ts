// The bindings of several suites as one, for the generic commands that take any recorded run
// (resume, retry, replay, worker): the union of their flags and help, and a lookup that asks each
// suite's binding in turn.
import type { RunBinding, SuiteCli } from './cli.js';

/** The suites' bindings as one (no flags, no help and binding nothing when none has one). */
export function combinedBinding(clis: readonly SuiteCli[]): RunBinding {
  const bindings = clis.flatMap((c) => (c.binding ? [c.binding] : []));
  return {
    options: Object.assign({}, ...bindings.map((b) => b.options)),
    help: bindings.map((b) => b.help).join('\n'),
    workerHelp: bindings.map((b) => b.workerHelp).join('\n'),
    bind(values, io) {
      const lookups = bindings.map((b) => b.bind(values, io));
      return (suite) => {
        for (const lookup of lookups) {
          const bound = lookup(suite);
          if (bound !== undefined) return bound;
        }
        return undefined;
      };
    },
  };
}
