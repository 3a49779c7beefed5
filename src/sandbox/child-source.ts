// The program of the sandbox process, passed with `-e` so the process needs no file-read
// permission at all. It refuses to run unless the permission model is active, reads one job
// (JSON) from stdin and writes one JSON line per check to stdout as soon as the check ends, so a
// process killed by the heap cap or the run timeout still leaves the finished checks behind.
// Every check gets a fresh vm context: a polluted prototype or a global the artifact changed
// cannot reach the next check. Kept free of backticks and "${" so it can live in String.raw.
import { DRIVER_SOURCE } from './driver-source.js';

const CHILD_TEMPLATE = String.raw`'use strict';
const vm = require('node:vm');
const DRIVER = __DRIVER__;
const NAME = /^[A-Za-z_$][\w$]*$/;
function send(message) { process.stdout.write(JSON.stringify(message) + '\n'); }
const permission = process.permission;
if (!permission || ['fs.read', 'fs.write', 'child', 'worker'].some((scope) => permission.has(scope))) {
  send({ fatal: 'the Node permission model is not active in the sandbox process' });
  process.exit(3);
}
// Promises of the artifact's realm that reject unobserved must not end the process.
process.on('unhandledRejection', () => {});
send({ ready: true });

function runOne(job, index) {
  const wrapped = "'use strict';(" + DRIVER + ')(' + JSON.stringify(JSON.stringify(job.args[index])) + ',' + job.maxText +
    ",function () {'use strict';\n" + job.source + '\n;return typeof ' + job.functionName + " === 'undefined' ? undefined : " +
    job.functionName + ';\n})';
  let script;
  try {
    script = new vm.Script(wrapped, { filename: 'artifact.js' });
  } catch (error) {
    return { status: 'load-error', name: 'SyntaxError', message: String(error && error.message).slice(0, 500) };
  }
  const context = vm.createContext(Object.create(null), {
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
  let out;
  try {
    out = script.runInContext(context, { timeout: job.checkTimeoutMs });
  } catch (error) {
    // Node creates the timeout error in the context's realm, where the artifact may have planted
    // getters: read only an own data property, which runs no code of the artifact.
    const code = typeof error === 'object' && error !== null ? Object.getOwnPropertyDescriptor(error, 'code') : undefined;
    if (code !== undefined && code.value === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { status: 'timeout' };
    return { status: 'crashed', message: 'the driver did not complete' };
  }
  if (typeof out !== 'string') return { status: 'crashed', message: 'the driver returned no text' };
  try {
    return JSON.parse(out);
  } catch {
    return { status: 'crashed', message: 'the driver returned malformed text' };
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  let job;
  try { job = JSON.parse(input); } catch { send({ fatal: 'the job is not JSON' }); process.exit(3); }
  if (!NAME.test(job.functionName)) { send({ fatal: 'the function name is not an identifier' }); process.exit(3); }
  for (let index = 0; index < job.args.length; index++) send({ index, ...runOne(job, index) });
  send({ done: true });
});
`;

/** The sandbox process's program (CommonJS, for `node -e`), with the driver spliced in. */
export const CHILD_SOURCE = CHILD_TEMPLATE.replace('__DRIVER__', () => JSON.stringify(DRIVER_SOURCE));
