import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import { captureCli, listFiles, tempDir } from '../support/cli.js';
import { jobStarted, runStarted } from '../support/events.js';

/** Runs the CLI in-process with exactly `env` and captures its output. */
const cli = (args: string[], cwd: string, env: Record<string, string> = {}) => captureCli(args, { cwd, env });

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir))
    out[f] = createHash('sha256')
      .update(await readFile(join(dir, f)))
      .digest('hex');
  return out;
}

// [args, what the message must name]
const CASES: [string[], RegExp][] = [
  [['run'], /name a suite/],
  [['run', 'nosuch'], /unknown suite "nosuch"/],
  [['run', 'smoke', '--repetitions', 'abc'], /--repetitions must be an integer/],
  [['run', 'smoke', '--repetitions', '0'], /--repetitions must be between 1/],
  [['run', 'smoke', '--concurrency', '-1'], /--concurrency/],
  [['run', 'smoke', '--seed', '1.5'], /--seed must be an integer/],
  [['run', 'smoke', '--case', 'nope'], /unknown case "nope" \(field cases\)/],
  [['run', 'smoke', '--bogus'], /--bogus/],
  [['run', 'smoke', 'extra'], /unexpected argument "extra"/],
  [['run', 'smoke', '--config', 'missing.json'], /cannot read config file \S*missing\.json/],
  [['run', 'smoke', '--config', 'not-json.json'], /config file \S*not-json\.json is not valid JSON/],
  [['run', 'smoke', '--config', 'array.json'], /config file \S*array\.json must hold a JSON object/],
  [['run', 'smoke', '--config', 'unknown-key.json'], /config file \S*unknown-key\.json: field repetitons/],
  [['run', 'smoke', '--config', 'wrong-type.json'], /config file \S*wrong-type\.json: field worker\.turnCap/],
  [['run', 'smoke', '--config', 'nested-unknown.json'], /config file \S*nested-unknown\.json: field model.*temp/],
  [['run', 'smoke', '--out', 'existing'], /existing exists already/],
  [['run', 'smoke', '--out', 'bad name!'], /run folder name "bad name!" is not a valid run id/],
  [['run', 'smoke', '--model', 'x'], /--model needs an endpoint/],
  [['run', 'smoke', '--base-url', 'ftp://x', '--model', 'm'], /--base-url must start with http/],
  [['run', 'smoke', '--base-url', 'http://127.0.0.1:9/v1'], /needs a model id/],
  [['run', 'smoke', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--api-key-env', 'NOPE_UNSET'], /NOPE_UNSET, which is not set/],
  [['rebuild'], /name one run folder/],
  [['rebuild', 'nofolder'], /nofolder has no event log/],
  [['replay', 'runs/damaged'], /damaged\/log\/events\.evlog: damaged frame at byte \d+/],
  [['replay', 'runs/newer'], /schema version 99.*upgrade evalog/],
  [['resume', 'runs/newer'], /schema version 99/],
  [['runs', '--dir', 'nowhere'], /nowhere does not exist/],
  [['mock-server', '--port', '99999'], /--port must be between 0 and 65535/],
  [['mock-server', '--fault', 'bogus'], /bogus/],
  [['nosuchcommand'], /unknown command "nosuchcommand"/],
];

describe('bad input: exit 2, a message naming the field or file, nothing written', function () {
  this.timeout(60_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    tmp = await tempDir();
    const d = tmp.dir;
    await writeFile(join(d, 'not-json.json'), '{ "repetitions": ');
    await writeFile(join(d, 'array.json'), '[1, 2]');
    await writeFile(join(d, 'unknown-key.json'), '{ "repetitons": 2 }');
    await writeFile(join(d, 'wrong-type.json'), '{ "worker": { "turnCap": "many" } }');
    await writeFile(join(d, 'nested-unknown.json'), '{ "model": { "temp": 1 } }');
    await mkdir(join(d, 'existing'));
    await mkdir(join(d, 'nofolder'));
    const log = await FileEventLog.open({ root: join(d, 'runs'), onWarning: () => {} });
    // A log damaged in the middle: valid frames, one flipped byte, more valid frames.
    await log.append([runStarted('damaged'), ...Array.from({ length: 20 }, (_, i) => jobStarted('damaged', `j${i}`))]);
    // A log written by a newer evalog: an event type at schema version 99.
    await log.append([runStarted('newer'), { ...jobStarted('newer', 'j0'), v: 99 } as never]);
    await log.close();
    const file = join(d, 'runs/damaged/log/events.evlog');
    const bytes = await readFile(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    await writeFile(file, bytes);
  });
  after(() => tmp.cleanup());

  for (const [args, message] of CASES) {
    it(`evalog ${args.join(' ')}`, async () => {
      const before = await snapshot(tmp.dir);
      const r = await cli(args, tmp.dir);
      expect(r.code, r.stdout + r.stderr).to.equal(2);
      expect(r.stderr, r.stderr).to.match(message);

      expect(r.stderr).to.not.match(/\n\s+at /, 'no stack trace for bad input');
      expect(await snapshot(tmp.dir)).to.deep.equal(before);
    });
  }
});
