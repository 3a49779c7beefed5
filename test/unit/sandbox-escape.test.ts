// Escape attempts against the sandbox's runtime layer. The static check is bypassed (runChecks)
// so each attempt reaches the process and the vm context; each must fail its check, reveal
// nothing, and leave the host untouched. The attempts the static check would have refused are
// also confirmed refused there; the ones it lets through (non-literal computed keys) run via
// runSandboxed, the full path.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecks, runSandboxed, staticCheck, type SandboxCheckResult } from '../../src/sandbox/index.js';

const dir = mkdtempSync(join(tmpdir(), 'evalog-sandbox-'));
const SECRET = `secret-${randomBytes(8).toString('hex')}`;
const SECRET_FILE = join(dir, 'secret.txt');
const MARK = join(dir, 'mark');
const q = JSON.stringify;

async function attempt(body: string, expectValue: unknown = SECRET): Promise<SandboxCheckResult> {
  const [result] = await runChecks(`function f(input) {\n${body}\n}`, 'f', [{ id: 'x', args: [{ a: [1] }], expect: expectValue }]);
  return result!;
}

function harmless(result: SandboxCheckResult, body: string): void {
  expect(result.passed, `${body} -> ${result.detail}`).to.equal(false);
  expect(result.detail).to.not.include(SECRET);
  expect(existsSync(MARK), `${body} wrote the mark`).to.equal(false);
}

const PROCESS_ROUTES = [
  'process',
  "input.constructor.constructor('return process')()",
  "({}).constructor.constructor('return process')()",
  "[].map.constructor('return process')()",
  "(async function () {}).constructor('return process')()",
  "(function* () {}).constructor('return process')()",
  "(() => { try { null.x; } catch (e) { return e.constructor.constructor('return process')(); } })()",
  "console.log.constructor('return process')()",
  'globalThis.process',
  'global.process',
  "eval('process')",
  "new Function('return process')()",
  "Function('return process')()",
];

describe('sandbox escapes: files, processes, sockets', () => {
  let server: Server;
  let connections = 0;
  before(async () => {
    writeFileSync(SECRET_FILE, SECRET);
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const route of PROCESS_ROUTES) {
    it(`cannot read a file via ${route}`, async () => {
      const bodies = [
        `return ${route}.mainModule.require('fs').readFileSync(${q(SECRET_FILE)}, 'utf8');`,
        `return require('fs').readFileSync(${q(SECRET_FILE)}, 'utf8');`,
        `return ${route}.binding('fs').readFileUtf8(${q(SECRET_FILE)}, 0);`,
      ];
      for (const body of bodies) harmless(await attempt(body), body);
      expect(staticCheck(`function f(input) { ${bodies[0]} }`, 'f').ok).to.equal(false);
    });

    it(`cannot spawn a process or open a socket via ${route}`, async () => {
      const port = (server.address() as { port: number }).port;
      const bodies = [
        `${route}.mainModule.require('child_process').execSync('touch ${MARK}'); return 1;`,
        `require('child_process').spawnSync('touch', [${q(MARK)}]); return 1;`,
        `${route}.mainModule.require('net').connect(${port}, '127.0.0.1'); return 1;`,
        `require('net').connect(${port}, '127.0.0.1'); return 1;`,
      ];
      for (const body of bodies) harmless(await attempt(body, 1), body);
    });
  }

  // A dynamic import rejects asynchronously with a host-realm error; its handlers would only run
  // when the context's microtask queue is drained again, which never happens (one context per
  // check), and even then the host realm cannot compile strings (EvalError) nor be hooked.
  it('cannot reach the host through import(), its rejection, or stack-trace hooks', async () => {
    const bodies = [
      `return import('node:fs').then((fs) => fs.writeFileSync(${q(MARK)}, 'x'));`,
      `return import('node:fs').catch((e) => e.constructor.constructor('return process')().mainModule.require('fs').writeFileSync(${q(MARK)}, 'x'));`,
      `return import('x').catch((e) => { const HostError = Object.getPrototypeOf(e.constructor); HostError.prepareStackTrace = (er, cs) => cs.map((c) => c.getThis()); const frames = new HostError().stack; frames.forEach((t) => { if (t && t.process) t.process.mainModule.require('fs').writeFileSync(${q(MARK)}, 'x'); }); });`,
      `Error.prepareStackTrace = (e, frames) => frames.map((c) => c.getThis() || c.getFunction()); return new Error().stack.filter(Boolean).length;`,
      'return arguments.callee.caller.name;',
      `return (function () { return this; })().process.pid;`,
    ];
    for (const body of bodies) harmless(await attempt(body, 1), body);
    expect(staticCheck(`function f(input) { ${bodies[0]} }`, 'f').reason).to.include('import() expression at line 1');
  });

  it('does not let a socket be opened by any route (the permission model does not cover them)', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(connections).to.equal(0);
  });

  it('turns a constructor chain the static check let through into a failed check', async () => {
    const source = `function f(x) {\n  const c = 'constr' + 'uctor';\n  return x[c][c]('return process')().pid;\n}`;
    const { staticResult, checks } = await runSandboxed(source, 'f', [{ id: 'x', args: [{}], expect: process.pid }]);
    expect(staticResult.ok).to.equal(true);
    expect(checks[0]).to.include({ passed: false, status: 'wrong-error' });
    expect(checks[0]!.detail).to.match(/^threw EvalError: Code generation from strings disallowed/);
  });
});

describe('sandbox escapes: resources and shared state', () => {
  it('times out an endless loop while the host keeps running', async () => {
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 20);
    const [result] = await runChecks('function f() { while (true) {} }', 'f', [{ id: 'loop', args: [], expect: 1 }], { checkTimeoutMs: 500 });
    clearInterval(ticker);
    expect(result!.status).to.equal('timeout');
    expect(ticks).to.be.above(5); // the host's event loop kept turning while the child spun
  });

  it('times out endless microtasks and endless getters read by the grader', async () => {
    const loops = [
      'async function spin() { while (true) await null; }\nfunction f() { spin(); return 1; }',
      'function f() { return { get v() { while (true) {} } }; }',
      'function f() { const e = new RangeError("x"); Object.defineProperty(e, "name", { get() { while (true) {} } }); throw e; }',
      'function f() { return /(a+)+b/.test("a".repeat(40)); }',
    ];
    for (const source of loops) {
      const [result] = await runChecks(source, 'f', [{ id: 'x', args: [], expect: 1 }], { checkTimeoutMs: 300 });
      expect(result!.status, source).to.equal('timeout');
    }
  });

  it('stops a memory bomb at the heap cap, fails only that check, and spares the host', async () => {
    const hostHeap = process.memoryUsage().heapUsed;
    const source = 'function f(n) { if (n === 0) { const a = []; while (true) a.push(new Array(100000).fill(n)); } return n; }';
    const results = await runChecks(source, 'f', [
      { id: 'before', args: [1], expect: 1 },
      { id: 'bomb', args: [0], expect: 0 },
      { id: 'after', args: [2], expect: 2 },
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['passed', 'memory', 'passed']);
    expect(results[1]!.detail).to.equal('memory: the check exceeded the 64 MB heap cap of the sandbox process');
    expect(process.memoryUsage().heapUsed - hostHeap).to.be.below(32 * 1024 * 1024);
  });

  it('keeps large buffers and string bombs out of reach or failing', async () => {
    const bodies = ['return new ArrayBuffer(2 ** 31).byteLength;', 'let s = "x"; while (true) s += s;', 'return new SharedArrayBuffer(8).byteLength;'];
    for (const body of bodies) {
      const result = await attempt(body, 1);
      expect(result.passed, body).to.equal(false);
      expect(['wrong-error', 'memory'], body).to.include(result.status);
    }
  });

  it('keeps prototype pollution inside the check that did it', async () => {
    const source = `function f(step) {
  if (step === 1) { Object.prototype.polluted = 'yes'; Array.prototype.includes = () => true; JSON.parse = () => 0; return 1; }
  return [({}).polluted === undefined, [1].includes(2), JSON.parse('[1]').length];
}`;
    const results = await runChecks(source, 'f', [
      { id: 'pollute', args: [1], expect: 1 },
      { id: 'clean', args: [2], expect: [true, false, 1] },
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['passed', 'passed']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect([1].includes(2)).to.equal(false);
  });

  it('has no __proto__ accessor to pollute through, even with a computed key the static check allows', async () => {
    const source = "function f(x) {\n  const k = '__pro' + 'to__';\n  return ({})[k] === undefined;\n}";
    const { staticResult, checks } = await runSandboxed(source, 'f', [{ id: 'x', args: [{}], expect: true }]);
    expect(staticResult.ok).to.equal(true);
    expect(checks[0]!.status).to.equal('passed');
  });

  it('grades correctly even when the artifact replaces the built-ins the grader uses', async () => {
    const source = `JSON.stringify = () => '"forged"'; JSON.parse = () => [[]]; Object.keys = () => []; Array.isArray = () => false; Number.isFinite = () => true;
function f(a) { a.push(2); return { v: [1, 2] }; }`;
    const [result] = await runChecks(source, 'f', [{ id: 'x', args: [[1]], expect: { v: [1, 2] } }]);
    expect(result).to.include({ status: 'mutated' });
    const [clean] = await runChecks(source.replace('a.push(2); ', ''), 'f', [{ id: 'x', args: [[1]], expect: { v: [1, 3] } }]);
    expect(clean!.detail).to.equal('expected {"v":[1,3]}, got {"v":[1,2]}');
  });

  it('cannot forge the result of another check through its return value', async () => {
    const forged = '\n{"index":1,"status":"returned","value":99,"mutated":[]}\n';
    const results = await runChecks(`function f(n) { return n === 0 ? ${q(forged)} : n; }`, 'f', [
      { id: 'a', args: [0], expect: forged },
      { id: 'b', args: [1], expect: 99 },
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['passed', 'wrong-value']);
  });

  it('offers no host globals and no code generation inside the context', async () => {
    const body = `return [typeof process, typeof require, typeof globalThis, typeof eval, typeof Function, typeof Proxy, typeof Reflect,
      typeof Date, typeof WebAssembly, typeof setTimeout, typeof Buffer, typeof fetch, typeof ArrayBuffer, typeof Intl];`;
    const result = await attempt(body, Array(14).fill('undefined'));
    expect(result.status, result.detail).to.equal('passed');
  });
});
