// What the scripted player understands of a task statement: its FUNCTION line (file, name and
// parameters), its RULE (when the rule is one of the phrases below, the player writes code that
// does it), and its EXAMPLE lines. It reads only the text it was sent: a rule it cannot parse gets
// a function that knows the examples and nothing else, and the hidden tests find that out.

/** The function a statement asks for. */
export interface FunctionSpec {
  path: string;
  name: string;
  params: string[];
}

/** One example: the arguments and the result, as JSON values. */
export interface Example {
  args: unknown[];
  result: unknown;
}

/** What a statement says, as far as the player can read it. */
export interface Statement {
  fn: FunctionSpec | null;
  rule: string | null;
  examples: Example[];
}

const FUNCTION = /^FUNCTION (\S+\.js) export function ([A-Za-z_$][\w$]*)\(([^)]*)\)\s*$/m;
const RULE = /^RULE (.+)$/m;
const EXAMPLE = /^EXAMPLE ([A-Za-z_$][\w$]*)\((.*)\) => (.+)$/gm;
const IDENT = /^[A-Za-z_$][\w$]*$/;

/** Reads the FUNCTION, RULE and EXAMPLE lines out of a text (the first of each that parses). */
export function readStatement(text: string): Statement {
  const f = FUNCTION.exec(text);
  const params = f
    ? f[3]!
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '')
    : [];
  const fn = f && params.every((p) => IDENT.test(p)) && !f[1]!.split('/').includes('..') ? { path: f[1]!, name: f[2]!, params } : null;
  const rule = RULE.exec(text)?.[1]?.trim() ?? null;
  const examples: Example[] = [];
  for (const m of text.matchAll(EXAMPLE)) {
    if (fn && m[1] !== fn.name) continue;
    try {
      examples.push({ args: JSON.parse(`[${m[2]}]`) as unknown[], result: JSON.parse(m[3]!) });
    } catch {
      // not a JSON example: the player cannot use it
    }
  }
  return { fn, rule, examples };
}

type Body = (p: (name: string) => string | null) => string | null;

// The phrases the player knows, each with the body it writes; `p` checks a word is a parameter.
const PHRASES: { pattern: RegExp; body: (m: RegExpExecArray) => Body }[] = [
  { pattern: /^return the sum of (\w+)$/, body: (m) => (p) => at(p, m[1], (x) => `return ${x}.reduce((total, n) => total + n, 0);`) },
  { pattern: /^return the product of (\w+)$/, body: (m) => (p) => at(p, m[1], (x) => `return ${x}.reduce((total, n) => total * n, 1);`) },
  { pattern: /^return the largest of (\w+)$/, body: (m) => (p) => at(p, m[1], (x) => `return Math.max(...${x});`) },
  { pattern: /^return the smallest of (\w+)$/, body: (m) => (p) => at(p, m[1], (x) => `return Math.min(...${x});`) },
  { pattern: /^return the number of items in (\w+)$/, body: (m) => (p) => at(p, m[1], (x) => `return ${x}.length;`) },
  { pattern: /^return (\w+) with its words in reverse order$/, body: (m) => (p) => at(p, m[1], (x) => `return ${x}.split(' ').reverse().join(' ');`) },
  { pattern: /^return (\w+) with its characters in reverse order$/, body: (m) => (p) => at(p, m[1], (x) => `return [...${x}].reverse().join('');`) },
  { pattern: /^return (\w+) in upper case$/, body: (m) => (p) => at(p, m[1], (x) => `return ${x}.toUpperCase();`) },
  { pattern: /^return (\w+) in lower case$/, body: (m) => (p) => at(p, m[1], (x) => `return ${x}.toLowerCase();`) },
  {
    pattern: /^return (\w+) limited to the range (\w+) to (\w+)$/,
    body: (m) => (p) => {
      const [v, lo, hi] = [p(m[1]!), p(m[2]!), p(m[3]!)];
      return v && lo && hi ? `return Math.min(Math.max(${v}, ${lo}), ${hi});` : null;
    },
  },
];

function at(p: (name: string) => string | null, word: string | undefined, make: (x: string) => string): string | null {
  const x = word === undefined ? null : p(word);
  return x === null ? null : make(x);
}

/** The body of the function for a rule the player can parse, or null when it cannot. */
export function ruleBody(fn: FunctionSpec, rule: string): string | null {
  const param = (w: string) => (fn.params.includes(w) ? w : null);
  for (const { pattern, body } of PHRASES) {
    const m = pattern.exec(rule.replace(/\.$/, '').trim());
    if (m) return body(m)(param);
  }
  return null;
}

/** The module the player writes: the rule's code when it understood the rule, else a table of the examples. */
export function solution(s: Statement): { source: string; understood: boolean } | null {
  if (!s.fn) return null;
  const { name, params } = s.fn;
  const body = s.rule === null ? null : ruleBody(s.fn, s.rule);
  if (body !== null) {
    return {
      source: `// Written by the scripted player from the task's rule: ${s.rule}.\nexport function ${name}(${params.join(', ')}) {\n  ${body}\n}\n`,
      understood: true,
    };
  }
  const table = s.examples.map((e) => `  [${JSON.stringify(e.args)}, ${JSON.stringify(e.result)}],`).join('\n');
  const source = [
    "// Written by the scripted player, which could not turn the task's rule into code: it knows the examples only.",
    `const EXAMPLES = [\n${table}\n];`,
    '',
    `export function ${name}(${params.join(', ')}) {`,
    `  const key = JSON.stringify([${params.join(', ')}]);`,
    '  for (const [args, result] of EXAMPLES) if (JSON.stringify(args) === key) return result;',
    `  throw new Error('${name}: no example for these arguments');`,
    '}',
    '',
  ].join('\n');
  return { source, understood: false };
}
