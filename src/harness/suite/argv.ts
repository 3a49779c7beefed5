import type { ParseArgsConfig } from 'node:util';

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
    const d = editDistance(given, name);
    if (best === null || d < best.d) best = { name, d };
  }
  if (best === null) return null;
  const near = best.d <= Math.max(1, Math.min(3, Math.floor(best.name.length / 3)));
  return near || best.name.startsWith(given) || given.startsWith(best.name) ? best.name : null;
}

/** Levenshtein distance (insert, delete, substitute; each costs 1). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
