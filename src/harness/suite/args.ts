// Strict parsing of a command's flags (every command's, a suite's own included): an unknown flag or
// a missing value is bad input naming the flag, with the nearest known one.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InputError } from './command.js';
import { joinNegativeValues, nearestOption } from './argv.js';

type Options = NonNullable<ParseArgsConfig['options']>;
/** What `parseCommandArgs` returns: named, so the declarations of dist/ can name it. */
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & { help: { type: 'boolean'; short: 'h' } }; allowPositionals: boolean; strict: true }>
>;

/** Parses argv strictly; unknown flags and missing values become an `InputError` naming the flag. */
export function parseCommandArgs<O extends Options>(command: string, args: string[], options: O, allowPositionals = true): Parsed<O> {
  const all = { help: { type: 'boolean', short: 'h' }, ...options } as const;
  try {
    return parseArgs({ args: joinNegativeValues(args, all), options: all, allowPositionals, strict: true });
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'(-[^']*)'/.exec(e.message)?.[1] ?? '';
      const name = flag.replace(/^-+/, '').split('=')[0]!;
      const near = flag.startsWith('--') ? nearestOption(name, Object.keys(all)) : null;
      throw new InputError(`evalog ${command}: unknown flag ${flag.split('=')[0]}${near ? `; did you mean --${near}?` : ''} (see evalog ${command} --help)`, {
        cause: err,
      });
    }
    throw new InputError(`evalog ${command}: ${e.message} (see evalog ${command} --help)`, { cause: err });
  }
}

/** Parses an integer flag, naming it when the value is not an integer within bounds. */
export function intFlag(command: string, flag: string, value: string | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw new InputError(`evalog ${command}: --${flag} must be an integer, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min || n > max) throw new InputError(`evalog ${command}: --${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}
