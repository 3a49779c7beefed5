// The dataset graders, by name, so a grader fits a flag, a case line and a config alike. The scoring
// itself is src/graders' (one copy for every suite); this file only parses names and dispatches:
//   exact                       trimmed output equals expected
//   contains                    output contains expected (case-sensitive)
//   regex[:FLAGS]               expected is a JavaScript pattern the output must match (flags from "imsu")
//   json-field[:PATH]           output parsed as JSON (a ``` fence is allowed); the value at PATH
//                               (dot-separated keys, array indices as numbers) equals expected, deep
//   deterministic-overlap-v1    blind token overlap of output and expected (exact, substring, numeric rules)
//   model                       an LLM judge with the run's rubric file (`--grader model:RUBRIC.md`)
import { contains, exact, GRADER_VERSION, jsonField, overlap, regex, type Scorer, type Verdict } from '../../graders/index.js';
import { assertNever } from '../../core/never.js';

export type { Verdict };

/** A parsed grader name. */
export type Grader =
  | { kind: 'exact' }
  | { kind: 'contains' }
  | { kind: 'regex'; flags: string }
  | { kind: 'json-field'; path: string[] }
  | { kind: typeof GRADER_VERSION }
  | { kind: 'model' };

/** The grader names, for help texts and messages. */
export const GRADER_NAMES = ['exact', 'contains', 'regex[:FLAGS]', 'json-field[:PATH]', GRADER_VERSION, 'model'] as const;

/** Parses a grader name; a string result is what is wrong with it. */
export function parseGrader(name: string): Grader | string {
  const [kind, ...rest] = name.split(':');
  const arg = rest.join(':');
  switch (kind) {
    case 'exact':
    case 'contains':
    case GRADER_VERSION:
      return rest.length === 0 ? { kind } : `grader ${kind} takes no argument`;
    case 'model':
      return rest.length === 0 ? { kind } : 'grader model takes its rubric from the run (--grader model:RUBRIC.md, or "rubric" in the config)';
    case 'regex':
      return /^[imsu]*$/.test(arg) && new Set(arg).size === arg.length
        ? { kind, flags: arg }
        : `regex flags must be distinct letters of "imsu", got ${JSON.stringify(arg)}`;
    case 'json-field':
      return arg === ''
        ? { kind, path: [] }
        : arg.split('.').every((s) => s !== '')
          ? { kind, path: arg.split('.') }
          : `json-field path ${JSON.stringify(arg)} has an empty segment`;
    default:
      return `unknown grader ${JSON.stringify(name)} (known: ${GRADER_NAMES.join(', ')})`;
  }
}

/** The scorer of a deterministic grader; null for the model grader, which needs a judge. */
export function scorerOf(grader: Grader): Scorer | null {
  switch (grader.kind) {
    case 'exact':
      return exact();
    case 'contains':
      return contains();
    case 'regex':
      return regex(grader.flags);
    case 'json-field':
      return jsonField(grader.path);
    case GRADER_VERSION:
      return overlap();
    case 'model':
      return null;
    default:
      return assertNever(grader);
  }
}

/** Why `expected` cannot be graded this way (checked when cases load), or null when it can. Any value suits the judge. */
export function expectedProblem(grader: Grader, expected: unknown): string | null {
  const scorer = scorerOf(grader);
  if (scorer === null) return expected === undefined ? 'has no "expected"' : null;
  return scorer.problem(expected);
}

/** Grades one output with a deterministic grader; `expected` has passed `expectedProblem`. */
export function grade(grader: Grader, output: string, expected: unknown): Verdict {
  const scorer = scorerOf(grader);
  if (scorer === null) throw new TypeError('grader model needs a judge: the suite grades it through its judge port');
  return scorer.score(output, expected);
}
