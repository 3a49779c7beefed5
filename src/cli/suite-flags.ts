// Suite-specific flags of `evalog run`: each suite may bring its own (its SuiteCli's runFlags). The parser
// takes every suite's flags; the named suite's `apply` turns them into config overrides, and a flag
// of another suite is refused by name.
import { SUITE_CLI, suiteCli, type AppliedRunFlags, type DefinedSuite, type RunFlagOption } from '../app/index.js';
import { InputError } from './io.js';

function collectOptions(): Record<string, RunFlagOption> {
  const out: Record<string, RunFlagOption> = {};
  for (const cli of Object.values(SUITE_CLI)) Object.assign(out, cli.runFlags?.options);
  return out;
}

/** Every suite's own flags, for the parser of `evalog run`; `--model` is repeatable when a suite makes it so. */
export const SUITE_RUN_OPTIONS = collectOptions() as { model: { type: 'string'; multiple: true } };

/** Help lines of every suite's own flags. */
export const SUITE_RUN_HELP = Object.values(SUITE_CLI)
  .flatMap((s) => (s.runFlags ? [s.runFlags.help] : []))
  .join('\n');

/** Config overrides from the suite's own flags, and the model id for the endpoint (from --model). */
export function applySuiteFlags(suite: DefinedSuite, values: Readonly<Record<string, unknown>>, cwd: string): AppliedRunFlags {
  const own = suiteCli(suite.name).runFlags;
  // Another suite's flag is refused by name, whether this suite has flags of its own or not.
  for (const flag of Object.keys(SUITE_RUN_OPTIONS)) {
    if (flag === 'model' || values[flag] === undefined || own?.options[flag]) continue;
    const owner = Object.entries(SUITE_CLI).find(([, s]) => s.runFlags?.options[flag])?.[0] ?? 'another suite';
    throw new InputError(`evalog run: --${flag} is a flag of suite ${owner}, not of ${suite.name}`);
  }
  if (own) return own.apply(values, cwd);
  const model = values.model as string | string[] | undefined;
  if (Array.isArray(model) && model.length > 1) throw new InputError(`evalog run: --model is given ${model.length} times; suite ${suite.name} runs one model`);
  return { overrides: {}, model: Array.isArray(model) ? model[0] : model };
}
