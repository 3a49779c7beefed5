// The static half of the sandbox: parse the artifact with acorn exactly as it will run (a
// strict-mode script; the runner wraps it in a strict function body) and refuse banned
// constructs before any of it executes. Computed member access with a non-literal key
// (`counts[word]`) stays allowed because ordinary code needs it; what it could reach at run time
// (Function via "constructor", Object.prototype via "__proto__") is neutralised by the runtime
// layer: code generation is off and every check gets a fresh context.
import { createRequire } from 'node:module';
import type { Node, Options, Program } from 'acorn';
import { BANNED_NODES, identifierBan, propertyBan } from './static-rules.js';
import type { StaticCheckResult, Violation } from './types.js';

// The runner prefixes the same directive on its own line, so the parse sees the grammar V8 sees.
const STRICT_PREFIX = '"use strict";\n';
const BASE: Options = { ecmaVersion: 'latest', locations: true, allowHashBang: false, allowReturnOutsideFunction: false };
const MAX_LISTED = 5;

type AnyNode = Node & Record<string, unknown>;

// acorn (229 KB) is needed only when an artifact is checked; a static import made every command
// (a dataset run, --help) load and compile it at start-up. A synchronous require on first use keeps
// staticCheck synchronous (issue 20).
let acornParse: typeof import('acorn').parse | undefined;
function parse(input: string, options: Options): Program {
  acornParse ??= (createRequire(import.meta.url)('acorn') as typeof import('acorn')).parse;
  return acornParse(input, options);
}

/** Check an artifact's source: it must parse as strict JavaScript, use no banned construct and bind `functionName` at top level. */
export function staticCheck(source: string, functionName: string): StaticCheckResult {
  let program: Program;
  try {
    program = parse(STRICT_PREFIX + source, { ...BASE, sourceType: 'script' });
  } catch (strictError) {
    return fromParseFailure(source, functionName, strictError);
  }
  const violations = findViolations(program, 1);
  const definesFunction = bindsTopLevel(program, functionName);
  return verdict(violations, null, definesFunction, functionName);
}

// Import/export and `with` do not parse as a strict script; re-parse the looser way so the
// report names the construct and its line instead of a bare syntax error.
function fromParseFailure(source: string, functionName: string, strictError: unknown): StaticCheckResult {
  const syntaxError = describeSyntaxError(strictError, 1);
  for (const sourceType of ['module', 'script'] as const) {
    try {
      const loose = parse(source, { ...BASE, sourceType });
      const violations = findViolations(loose, 0);
      if (violations.length > 0) return verdict(violations, null, bindsTopLevel(loose, functionName), functionName);
    } catch {
      // not parseable this way either; try the next or report the strict error
    }
  }
  return verdict([], syntaxError, false, functionName);
}

function describeSyntaxError(error: unknown, lineOffset: number): string {
  if (!(error instanceof SyntaxError)) return String(error);
  const loc = (error as SyntaxError & { loc?: { line: number; column: number } }).loc;
  const bare = error.message.replace(/\s*\(\d+:\d+\)$/, '');
  return loc ? `${bare} (line ${loc.line - lineOffset}, column ${loc.column})` : bare;
}

function verdict(violations: Violation[], syntaxError: string | null, definesFunction: boolean, functionName: string): StaticCheckResult {
  let reason: string | null = null;
  if (syntaxError !== null) reason = `not valid strict-mode JavaScript: ${syntaxError}`;
  else if (violations.length > 0) {
    const listed = violations.slice(0, MAX_LISTED).map((v) => `${v.construct} at line ${v.line}`);
    const more = violations.length > MAX_LISTED ? `; and ${violations.length - MAX_LISTED} more` : '';
    reason = `banned construct: ${listed.join('; ')}${more}`;
  } else if (!definesFunction) reason = `no top-level function \`${functionName}\` is defined`;
  return { ok: reason === null, violations, syntaxError, definesFunction, reason };
}

/** Whether the program binds `name` at its top level (a function declaration or a const/let/var). */
function bindsTopLevel(program: Program, name: string): boolean {
  return program.body.some((statement) => {
    const s = statement as AnyNode;
    if (s.type === 'FunctionDeclaration') return (s.id as AnyNode | null)?.name === name;
    if (s.type !== 'VariableDeclaration') return false;
    return (s.declarations as AnyNode[]).some((d) => (d.id as AnyNode).type === 'Identifier' && (d.id as AnyNode).name === name);
  });
}

/** Every banned construct in the tree, in source order. */
function findViolations(program: Program, lineOffset: number): Violation[] {
  const found: Violation[] = [];
  const flag = (node: Node, construct: string): void => {
    const start = node.loc?.start ?? { line: 1 + lineOffset, column: 0 };
    found.push({ construct, line: start.line - lineOffset, column: start.column });
  };
  visit(program as unknown as AnyNode, [], flag);
  return found;
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** The name a member or property key spells, when it is static (identifier, string/number literal, plain template). */
function staticKey(key: AnyNode, computed: boolean): string | null {
  if (!computed && key.type === 'Identifier') return key.name as string;
  if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) return String(key.value);
  if (key.type === 'TemplateLiteral' && (key.expressions as unknown[]).length === 0) {
    const quasi = (key.quasis as AnyNode[])[0];
    return (quasi?.value as { cooked?: string } | undefined)?.cooked ?? null;
  }
  return null;
}

// `X.prototype.method.call(...)` / `.apply(...)` only reads a built-in method; nothing else may touch `prototype`.
function isPrototypeCallIdiom(member: AnyNode, ancestors: AnyNode[]): boolean {
  const [method, callOrApply, call] = [ancestors.at(-1), ancestors.at(-2), ancestors.at(-3)];
  if (method?.type !== 'MemberExpression' || method.object !== member || method.computed) return false;
  if (propertyBan((method.property as AnyNode).name as string) !== null) return false;
  if (callOrApply?.type !== 'MemberExpression' || callOrApply.object !== method || callOrApply.computed) return false;
  if (!['call', 'apply'].includes((callOrApply.property as AnyNode).name as string)) return false;
  return call?.type === 'CallExpression' && call.callee === callOrApply;
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression']);

function visit(node: AnyNode, ancestors: AnyNode[], flag: (node: Node, construct: string) => void): void {
  const banned = BANNED_NODES.get(node.type);
  if (banned !== undefined) flag(node, banned);
  const skip = new Set<unknown>();
  switch (node.type) {
    case 'Identifier': {
      const why = identifierBan(node.name as string);
      if (why !== null) flag(node, why);
      break;
    }
    case 'MemberExpression': {
      const name = staticKey(node.property as AnyNode, node.computed as boolean);
      const why = name === null ? null : propertyBan(name);
      if (why !== null && !(name === 'prototype' && isPrototypeCallIdiom(node, ancestors))) flag(node.property as Node, why);
      if (!node.computed) skip.add(node.property);
      break;
    }
    case 'Property': {
      const name = staticKey(node.key as AnyNode, node.computed as boolean);
      const why = name === null ? null : propertyBan(name);
      if (why !== null) flag(node.key as Node, why);
      // a shorthand `{ x }` shares its name with a variable: the value is still checked as one
      if (!node.computed) skip.add(node.key);
      break;
    }
    case 'MetaProperty':
      if ((node.meta as AnyNode).name === 'import') flag(node, 'import.meta');
      return;
    case 'ThisExpression':
      // strict functions get `this` = undefined; outside every function it is the global object
      if (!ancestors.some((a) => FUNCTION_TYPES.has(a.type))) flag(node, '`this` outside a function (the global object)');
      break;
  }
  const inner = [...ancestors, node];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || skip.has(value)) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item, inner, flag);
    } else if (isNode(value)) visit(value, inner, flag);
  }
}
