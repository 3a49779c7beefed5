// What the static check refuses, and why. The JavaScript counterpart of the Python profile
// (no imports, classes, globals, dunder names, eval/exec/getattr...): every route to the host
// (modules, process, the global object), to code generation (eval, Function and its siblings
// reached through `.constructor`), to prototypes, and to non-determinism is named here. Plain
// computation (loops, arrays, objects, Math, JSON, Map/Set, RegExp, closures, try/catch) is not.

/** Identifiers that may not appear at all (as references, bindings or labels), with the reason. */
export const BANNED_IDENTIFIERS: ReadonlyMap<string, string> = new Map([
  ['require', 'module loading'],
  ['module', 'module loading'],
  ['exports', 'module loading'],
  ['importScripts', 'module loading'],
  ['process', 'host access'],
  ['globalThis', 'the global object'],
  ['global', 'the global object'],
  ['window', 'the global object'],
  ['self', 'the global object'],
  ['frames', 'the global object'],
  ['Buffer', 'host access'],
  ['eval', 'code generation'],
  ['Function', 'code generation'],
  ['AsyncFunction', 'code generation'],
  ['GeneratorFunction', 'code generation'],
  ['AsyncGeneratorFunction', 'code generation'],
  ['WebAssembly', 'code generation'],
  ['Proxy', 'reflection'],
  ['Reflect', 'reflection'],
  ['SharedArrayBuffer', 'shared memory'],
  ['Atomics', 'shared memory'],
  ['WeakRef', 'non-deterministic (garbage collection)'],
  ['FinalizationRegistry', 'non-deterministic (garbage collection)'],
  ['Date', 'non-deterministic (clock)'],
  ['performance', 'non-deterministic (clock)'],
  ['Intl', 'non-deterministic (host locale)'],
  ['crypto', 'non-deterministic (randomness)'],
  ['setTimeout', 'asynchronous host API'],
  ['setInterval', 'asynchronous host API'],
  ['setImmediate', 'asynchronous host API'],
  ['queueMicrotask', 'asynchronous host API'],
  ['fetch', 'network'],
  ['XMLHttpRequest', 'network'],
  ['WebSocket', 'network'],
  ['Worker', 'threads'],
]);

/** Property names that may not be read, written, destructured or declared, with the reason. */
export const BANNED_PROPERTIES: ReadonlyMap<string, string> = new Map([
  ['constructor', 'reaches Function and its siblings'],
  ['prototype', 'prototype access (only X.prototype.method.call/apply is allowed)'],
  ['callee', 'stack introspection'],
  ['caller', 'stack introspection'],
  ['arguments', 'stack introspection'],
  ['getPrototypeOf', 'prototype access'],
  ['setPrototypeOf', 'prototype access'],
  ['defineProperty', 'prototype and global tampering'],
  ['defineProperties', 'prototype and global tampering'],
]);

/** Node types refused wherever they occur. */
export const BANNED_NODES: ReadonlyMap<string, string> = new Map([
  ['ImportDeclaration', 'import declaration'],
  ['ExportNamedDeclaration', 'export declaration'],
  ['ExportDefaultDeclaration', 'export declaration'],
  ['ExportAllDeclaration', 'export declaration'],
  ['ImportExpression', 'import() expression'],
  ['WithStatement', 'with statement'],
  ['ClassDeclaration', 'class'],
  ['ClassExpression', 'class'],
  ['Super', 'super'],
  ['DebuggerStatement', 'debugger statement'],
]);

/** Why an identifier is refused, or null. Names starting with `__` are refused like Python's dunders. */
export function identifierBan(name: string): string | null {
  if (name.startsWith('__')) return `identifier \`${name}\` (names starting with "__" are reserved)`;
  const why = BANNED_IDENTIFIERS.get(name);
  return why === undefined ? null : `identifier \`${name}\` (${why})`;
}

/** Why a property name is refused, or null (`__proto__`, `__defineGetter__`... fall under the `__` rule). */
export function propertyBan(name: string): string | null {
  if (name.startsWith('__')) return `property \`${name}\` (names starting with "__" are reserved)`;
  const why = BANNED_PROPERTIES.get(name);
  return why === undefined ? null : `property \`${name}\` (${why})`;
}
