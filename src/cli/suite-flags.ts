// Suite-specific flags of `evalog run`: each suite may bring its own (its SuiteCli's runFlags). The parser
// takes the flags of every suite loaded (run loads the named suite's plugin first, and every plugin
// only when a flag is unknown to those); the named suite's `apply` turns them into config
// overrides, and a flag of another suite is refused by name.
import { suiteCli, suiteClis, type AppliedRunFlags, type DefinedSuite, type RunFlagOption } from '../app/index.js';
import { InputError } from './io.js';

/** The own flags of every loaded suite, for the parser of `evalog run`; `--model` is repeatable when a suite makes it so. */
export function suiteRunOptions(): { model: { type: 'string'; multiple: true } } {
  const out: Record<string, RunFlagOption> = {};
  for (const cli of Object.values(suiteClis())) Object.assign(out, cli.runFlags?.options);
  return out as { model: { type: 'string'; multiple: true } };
}

/** Help lines of every loaded suite's own flags. */
export function suiteRunHelp(): string {
  return Object.values(suiteClis())
    .flatMap((s) => (s.runFlags ? [s.runFlags.help] : []))
    .join('\n');
}

/** Config overrides from the suite's own flags, and the model id for the endpoint (from --model). */
export function applySuiteFlags(suite: DefinedSuite, values: Readonly<Record<string, unknown>>, cwd: string): AppliedRunFlags {
  const own = suiteCli(suite.name).runFlags;
  const clis = suiteClis();
  // Another suite's flag is refused by name, whether this suite has flags of its own or not.
  for (const flag of Object.keys(suiteRunOptions())) {
    if (flag === 'model' || values[flag] === undefined || own?.options[flag]) continue;
    const owner = Object.entries(clis).find(([, s]) => s.runFlags?.options[flag])?.[0] ?? 'another suite';
    throw new InputError(`evalog run: --${flag} is a flag of suite ${owner}, not of ${suite.name}`);
  }
  if (own) return own.apply(values, cwd);
  const model = values.model as string | string[] | undefined;
  if (Array.isArray(model) && model.length > 1) throw new InputError(`evalog run: --model is given ${model.length} times; suite ${suite.name} runs one model`);
  return { overrides: {}, model: Array.isArray(model) ? model[0] : model };
}
