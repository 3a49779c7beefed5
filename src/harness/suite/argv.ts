import type { ParseArgsConfig } from 'node:util';
// The file alone, not graders/index: every command parses its flags, few grade anything.
import { levenshteinDistance } from '../../graders/similarity.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util's parseArgs reads `--repetitions -1` as two flags ("argument is ambiguous"): a
 * negative number after a flag that takes a value is joined to it (`--repetitions=-1`), so the
 * flag's own range check can name it.
 */
export function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : null;
    if (name !== null && options[name]?.type === 'string' && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/** The option nearest to a misspelt one (edit distance), or null when none is near enough. */
export function nearestOption(given: string, names: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const name of [...names].sort()) {
    const d = levenshteinDistance(given, name);
    if (best === null || d < best.d) best = { name, d };
  }
  if (best === null) return null;
  const near = best.d <= Math.max(1, Math.min(3, Math.floor(best.name.length / 3)));
  return near || best.name.startsWith(given) || given.startsWith(best.name) ? best.name : null;
}
