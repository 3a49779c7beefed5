// Reading a context-snapshot protocol folder: real files (the stand-in fixture, copied to a temp
// folder to edit), real python3 running evalog's loader. What it is for: only the published bytes
// run unless the user allows a changed copy; every rule of the protocol's form is checked with a
// one-line error that names the file and the field; the case file runs alone.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PythonUnavailableError, UserError } from 'evalog';
import {
  type ContextSnapshotProtocol,
  checkPins,
  loadContextSnapshotProtocol,
  PROTOCOL_FILES,
  ProtocolConfigError,
  ProtocolFileError,
  type ProtocolPins,
  ProtocolPathError,
  PUBLISHED_PINS,
  UnpinnedProtocolError,
} from '../../src/protocol/index.js';

const STANDIN = fileURLToPath(new URL('../../../../test/fixtures/context-snapshot-protocol', import.meta.url));
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const hashesOf = (dir: string) => Object.fromEntries(PROTOCOL_FILES.map((f) => [f, sha(readFileSync(join(dir, f)))])) as ProtocolPins;

const temps: string[] = [];
// At the file's top level, so it runs after the last describe: in the first describe's `after`, it
// missed the copies the later ones made (64 folders left in $TMPDIR per run of the suite).
after(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A fresh copy of the stand-in folder to edit. */
function standin(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalog-cs-protocol-'));
  temps.push(dir);
  cpSync(STANDIN, dir, { recursive: true });
  return dir;
}
/** Rewrites one file of `dir`; `edit` gets and returns its text. */
function edit(dir: string, file: string, change: (text: string) => string): void {
  const before = readFileSync(join(dir, file), 'utf8');
  const after = change(before);
  expect(after, `the edit of ${file} changed nothing`).to.not.equal(before);
  writeFileSync(join(dir, file), after);
}
const editConfig = (dir: string, change: (c: Record<string, unknown>) => void) =>
  edit(dir, 'config.json', (t) => {
    const c = JSON.parse(t) as Record<string, unknown>;
    change(c);
    return JSON.stringify(c, null, 2);
  });
const load = (dir: string, allowUnpinned = true) => loadContextSnapshotProtocol(dir, { allowUnpinned });

/** Runs `fn`, expects it to throw an instance of `cls` and returns it; the message is one line, no stack. */
function refused<E extends Error>(fn: () => unknown, cls: new (...a: never[]) => E): E {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected ${cls.name}`).to.be.instanceOf(cls);
  const err = caught as E;
  expect(err, 'every protocol error is a UserError (CLI: exit 2, message only)').to.be.instanceOf(UserError);
  expect(err.message, 'one line').to.not.include('\n');
  expect(err.message).to.not.match(/Traceback|File "/);
  return err;
}

describe('context-snapshot protocol: loading a folder', function () {
  // Each load starts python3 (about half a second on a shared machine).
  this.timeout(30_000);

  it('loads the stand-in with allowUnpinned: not pinned, the actual hashes beside the published ones, every case and prompt', () => {
    const p: ContextSnapshotProtocol = load(STANDIN);
    expect(p.pinned).to.equal(false);
    expect(p.source).to.equal(STANDIN);
    expect(p.id).to.equal('context-snapshot-standin-v1');
    expect(p.files).to.deep.equal(PROTOCOL_FILES.map((file) => ({ file, sha256: sha(readFileSync(join(STANDIN, file))), pinned: PUBLISHED_PINS[file] })));
    expect(p.cases.map((c) => [c.name, c.kind, c.checks.length])).to.deep.equal([
      ['cache_settings', 'json', 0],
      ['parcel_fee', 'python', 6],
      ['duration_seconds', 'python', 6],
      ['tag_list', 'python', 3],
      ['backup_window', 'json', 0],
      ['probe_config', 'json', 0],
      ['export_defaults', 'json', 0],
      ['mirror_policy', 'json', 0],
    ]);
    const [cache, parcel, , tags] = p.cases;
    // Tuples of the history are {role, content}; dataclass defaults are filled in.
    expect(cache!.history[0]).to.deep.equal({
      role: 'user',
      content: "Start with a ttl of 600 seconds and room for 500 entries. Evict least recently used entries ('lru').",
    });
    expect(cache).to.include({ summary: '', function: null });
    expect(cache!.references).to.deep.equal({});
    expect(cache!.expected).to.deep.equal({ ttl_seconds: 300, max_entries: 500, eviction: 'lru', shared: false });
    expect(parcel!.summary).to.match(/^Agreed tariff: /);
    expect(parcel!.expected).to.equal(null);
    // A raises check has no want key at all (want: null would be a check that expects None).
    expect(parcel!.checks.slice(4)).to.deep.equal([
      { args: [0, false], raises: 'ValueError' },
      { args: [12.5, false], raises: 'ValueError' },
    ]);
    expect(tags!.history.map((h) => h.role)).to.deep.equal(['user', 'tool', 'assistant']);
    expect(Object.keys(tags!.references)).to.deep.equal(['tagging-guide']);
    // A history built by an expression (a comprehension) is read as Python computes it.
    expect(p.cases[6]!.history).to.have.length(13);
    expect(p.cases[6]!.history[12]!.content).to.equal('Garden note 11: bed 11 gets 3 litres of water and faces north.');
    expect(Object.keys(p.prompts.dispatchPolicies)).to.deep.equal(['isolated_handoff', 'snapshot']);
    expect(p.prompts.leadSystem).to.include("context_mode set to 'isolated' or 'snapshot'");
    expect(p.prompts.workerSystem).to.match(/^You are a worker with three tools/);
    expect(p.config).to.deep.equal({ ...JSON.parse(readFileSync(join(STANDIN, 'config.json'), 'utf8')) });
  });

  it('refuses the stand-in without allowUnpinned, naming the file and both hashes, before any of its Python runs', () => {
    const dir = standin();
    const marker = join(dir, 'ran');
    // Were the unpinned file run, it would leave this marker.
    edit(dir, 'cases.py', (t) => `open(${JSON.stringify(marker)}, "w").close()\n${t}`);
    const err = refused(() => load(dir, false), UnpinnedProtocolError);
    const actual = sha(readFileSync(join(dir, 'cases.py')));
    expect(err.message).to.include(join(dir, 'cases.py')).and.include(actual).and.include(PUBLISHED_PINS['cases.py']);
    expect(err).to.include({ file: join(dir, 'cases.py'), expected: PUBLISHED_PINS['cases.py'], actual });
    expect(existsSync(marker), 'the unpinned cases.py ran').to.equal(false);
    // With allowUnpinned it does run: the marker proves the refusal above was what kept it from running.
    load(dir, true);
    expect(existsSync(marker)).to.equal(true);
  });

  it('a folder whose hashes match the pin table loads as pinned without allowUnpinned; one changed byte is refused', () => {
    const dir = standin();
    const pins = hashesOf(dir);
    const p = loadContextSnapshotProtocol(dir, { allowUnpinned: false, pins });
    expect(p.pinned).to.equal(true);
    expect(p.files.map((f) => f.sha256)).to.deep.equal(p.files.map((f) => f.pinned));
    // One byte of prompts.py ('three' -> 'thrEe').
    edit(dir, 'prompts.py', (t) => t.replace('three tools', 'thrEe tools'));
    const err = refused(() => loadContextSnapshotProtocol(dir, { allowUnpinned: false, pins }), UnpinnedProtocolError);
    expect(err.actual).to.equal(sha(readFileSync(join(dir, 'prompts.py'))));
    expect(err.actual).to.not.equal(pins['prompts.py']);
    expect(err.message).to.include(join(dir, 'prompts.py')).and.include(pins['prompts.py']).and.include(err.actual);
    // Allowed, it is recorded as unpinned with the new hash.
    const q = loadContextSnapshotProtocol(dir, { allowUnpinned: true, pins });
    expect(q.pinned).to.equal(false);
    expect(q.files[1]).to.deep.equal({ file: 'prompts.py', sha256: err.actual, pinned: pins['prompts.py'] });
  });

  it('checkPins compares with the table it is given; the published pins are the default', () => {
    const paths = { 'cases.py': '/p/cases.py', 'prompts.py': '/p/prompts.py', 'config.json': '/p/config.json' };
    const same = { ...PUBLISHED_PINS };
    expect(checkPins(same, paths, { allowUnpinned: false }).pinned).to.equal(true);
    const changed = { ...PUBLISHED_PINS, 'config.json': 'ab'.repeat(32) };
    const err = refused(() => checkPins(changed, paths, { allowUnpinned: false }), UnpinnedProtocolError);
    expect(err.message).to.include('/p/config.json').and.include(PUBLISHED_PINS['config.json']).and.include('ab'.repeat(32));
    expect(checkPins(changed, paths, { allowUnpinned: false, pins: changed }).pinned).to.equal(true);
    expect(checkPins(changed, paths, { allowUnpinned: true })).to.deep.include({ pinned: false });
  });

  it('the published pins are those of deer-flow f649aa8f', () => {
    expect(PUBLISHED_PINS).to.deep.equal({
      'cases.py': '624608366555415aaf4332c89dd645e65038fee2df9ec64ca1ba6f6b4e4fbd95',
      'prompts.py': '26ed9a1a2767be644e7768ba8d7158b763ea038c2b1d19c1828e3bdd17af7b13',
      'config.json': '93ae341b521a7c53602e8dafb7909fb88dcb0066f53bb45cc58639648e7ef4cd',
    });
  });

  it('a missing folder, a file instead of a folder and a missing file are each one line naming the path', () => {
    const dir = standin();
    expect(refused(() => load(join(dir, 'nope')), ProtocolPathError).message).to.include(join(dir, 'nope'));
    expect(refused(() => load(join(dir, 'config.json')), ProtocolPathError).message)
      .to.include(join(dir, 'config.json'))
      .and.include('not a folder');
    rmSync(join(dir, 'prompts.py'));
    expect(refused(() => load(dir), ProtocolPathError).message)
      .to.include(join(dir, 'prompts.py'))
      .and.include('missing');
  });
});

describe('context-snapshot protocol: config.json with the published rules', function () {
  // Each load starts python3 (about half a second on a shared machine).
  this.timeout(30_000);
  const bad: [string, (c: Record<string, unknown>) => void, string, RegExp][] = [
    ['an extra key', (c) => (c.api_base = 'x'), 'api_base', /unknown key/],
    ['a missing key', (c) => delete c.order_seed, 'order_seed', /missing/],
    ['max_retries 1', (c) => (c.max_retries = 1), 'max_retries', /must be 0/],
    ['temperature 3', (c) => (c.temperature = 3), 'temperature', /from 0 to 2, got 3/],
    ['a boolean temperature', (c) => (c.temperature = true), 'temperature', /finite number/],
    ['max_tokens 0', (c) => (c.max_tokens = 0), 'max_tokens', /positive integer/],
    ['a fractional concurrency', (c) => (c.concurrency = 1.5), 'concurrency', /positive integer/],
    ['a string seed', (c) => (c.seed = '1703'), 'seed', /must be an integer/],
    ['an unknown reasoning_effort', (c) => (c.reasoning_effort = 'extreme'), 'reasoning_effort', /null or one of none, minimal/],
    ['an empty protocol name', (c) => (c.protocol = ''), 'protocol', /non-empty string/],
  ];
  for (const [what, change, field, detail] of bad) {
    it(`${what} is refused, naming config.json and ${field}`, () => {
      const dir = standin();
      editConfig(dir, change);
      const err = refused(() => load(dir), ProtocolConfigError);
      expect(err.field).to.equal(field);
      expect(err.message)
        .to.include(`${join(dir, 'config.json')}: field ${field}: `)
        .and.match(detail);
    });
  }

  it('null reasoning_effort and a negative seed are within the rules', () => {
    const dir = standin();
    editConfig(dir, (c) => {
      c.reasoning_effort = null;
      c.seed = -4;
    });
    expect(load(dir).config).to.include({ reasoning_effort: null, seed: -4 });
  });

  it('text that is not a JSON object is refused', () => {
    const dir = standin();
    writeFileSync(join(dir, 'config.json'), '[1, 2]');
    expect(refused(() => load(dir), ProtocolConfigError).message).to.include('not a JSON object');
    writeFileSync(join(dir, 'config.json'), '{"protocol": ');
    expect(refused(() => load(dir), ProtocolConfigError).message)
      .to.include(join(dir, 'config.json'))
      .and.include('not valid JSON');
  });
});

describe('context-snapshot protocol: cases.py and prompts.py through the Python loader', function () {
  // Each load starts python3 (about half a second on a shared machine).
  this.timeout(30_000);
  /** Loads the stand-in with one edit of `file` and returns the ProtocolFileError's message. */
  function brokenBy(file: string, change: (t: string) => string): string {
    const dir = standin();
    edit(dir, file, change);
    const err = refused(() => load(dir), ProtocolFileError);
    expect(err.message).to.include(join(dir, file));
    return err.message;
  }

  it('a syntax error is the file and the exception line with its line number, no traceback', () => {
    const m = brokenBy('cases.py', (t) => `${t}\nCase(\n`);
    expect(m).to.match(/importing it failed: SyntaxError: .*\(line \d+\)$/);
  });

  it('an exception raised while importing is its last line', () => {
    expect(brokenBy('prompts.py', (t) => t.replace('WORKER_SYSTEM = (', 'WORKER_SYSTEM = undefined_name + ('))).to.match(
      /importing it failed: NameError: name 'undefined_name' is not defined$/,
    );
  });

  it('a bad kind names the case and the field', () => {
    expect(brokenBy('cases.py', (t) => t.replace('"late_correction",\n        "json",', '"late_correction",\n        "yaml",'))).to.match(
      /case "cache_settings" \(#0\): kind: /,
    );
  });

  it('a duplicate case name is refused at the second one', () => {
    expect(brokenBy('cases.py', (t) => t.replace('"backup_window",', '"cache_settings",'))).to.match(
      /case "cache_settings" \(#4\): name: duplicate case name$/,
    );
  });

  it("a history role other than user, assistant and tool, and a history entry that is not a pair, name the entry's field", () => {
    expect(brokenBy('cases.py', (t) => t.replace('("assistant", "Noted.', '("system", "Noted.'))).to.match(/case "cache_settings" \(#0\): history\.1\.role: /);
    expect(brokenBy('cases.py', (t) => t.replace('("user", "Backups start at 2 at night, so start_hour is 2."),', '("user",),'))).to.match(
      /case "backup_window" \(#4\): history\.0: /,
    );
  });

  it('a json case with checks or without expected, and a python case without function or checks, are refused', () => {
    const withChecks = (t: string) =>
      t.replace(
        'expected={"start_hour": 2, "duration_minutes": 90, "weekdays": ["mon", "wed", "fri"], "keep_copies": 7, "verify": True},',
        'expected={"start_hour": 2}, checks=[{"args": [], "want": 1}],',
      );
    expect(brokenBy('cases.py', withChecks)).to.match(/case "backup_window" \(#4\): checks: a json case has no checks/);
    expect(brokenBy('cases.py', (t) => t.replace('expected={"path": "/ready", "period_seconds": 10, "failure_threshold": 3},', ''))).to.match(
      /case "probe_config" \(#5\): expected: a json case needs the expected object$/,
    );
    expect(brokenBy('cases.py', (t) => t.replace('function="parcel_fee",', ''))).to.match(/case "parcel_fee" \(#1\): function: /);
    // tag_list's checks removed: the dataclass default, an empty list.
    const noChecks = (t: string) => {
      const from = t.indexOf('function="clean_tags",') + 'function="clean_tags",'.length;
      return t.slice(0, from) + t.slice(t.indexOf('\n    ),', from));
    };
    expect(brokenBy('cases.py', noChecks)).to.match(/case "tag_list" \(#3\): checks: a python case needs at least one check$/);
  });

  it('a check with both want and raises, or neither, names the check', () => {
    expect(brokenBy('cases.py', (t) => t.replace('{"args": ["45s"], "want": 45},', '{"args": ["45s"], "want": 45, "raises": "ValueError"},'))).to.match(
      /case "duration_seconds" \(#2\): checks\.1: needs exactly one of want and raises$/,
    );
    expect(brokenBy('cases.py', (t) => t.replace('{"args": ["45s"], "want": 45},', '{"args": ["45s"]},'))).to.match(
      /case "duration_seconds" \(#2\): checks\.1: needs exactly one of want and raises$/,
    );
    expect(brokenBy('cases.py', (t) => t.replace('{"args": ["45s"], "want": 45},', '{"args": ["45s"], "want": 45, "note": 1},'))).to.match(
      /case "duration_seconds" \(#2\): checks\.1\.note: unknown field$/,
    );
  });

  it('a value Python cannot print as JSON (a set) names the case and the field', () => {
    expect(brokenBy('cases.py', (t) => t.replace('"keep_copies": 7, "verify": True}', '"keep_copies": {7}, "verify": True}'))).to.match(
      /case "backup_window" \(#4\): expected: not representable as JSON \(.*set.*\)$/,
    );
  });

  it('CASES missing, and prompts.py without DISPATCH_POLICIES or with a third arm, are refused by name', () => {
    expect(brokenBy('cases.py', (t) => t.replace('CASES = [', 'OTHER = ['))).to.match(/it defines no CASES$/);
    expect(brokenBy('prompts.py', (t) => t.replace('DISPATCH_POLICIES = {', 'POLICIES = {'))).to.match(/DISPATCH_POLICIES: not defined$/);
    expect(brokenBy('prompts.py', (t) => t.replace('DISPATCH_POLICIES = {', 'DISPATCH_POLICIES = {\n    "third": "x",'))).to.match(
      /DISPATCH_POLICIES\.third: unknown field$/,
    );
  });

  it('cases.py cannot import its siblings: the folder is not on sys.path and it is no package', () => {
    const dir = standin();
    writeFileSync(join(dir, 'helper.py'), 'NOTE = "a sibling module"\n');
    edit(dir, 'cases.py', (t) => `from helper import NOTE\n${t}`);
    expect(refused(() => load(dir), ProtocolFileError).message).to.match(/importing it failed: ModuleNotFoundError: No module named 'helper'$/);
    edit(dir, 'cases.py', (t) => t.replace('from helper import NOTE', 'from . import helper'));
    expect(refused(() => load(dir), ProtocolFileError).message).to.match(
      /importing it failed: ImportError: attempted relative import with no known parent package$/,
    );
    // prompts.py cannot reach cases.py either (each file runs in its own process).
    const dir2 = standin();
    edit(dir2, 'prompts.py', (t) => `import cases\n${t}`);
    expect(refused(() => load(dir2), ProtocolFileError).message)
      .to.include(join(dir2, 'prompts.py'))
      .and.match(/No module named 'cases'$/);
  });

  it('what the file prints while imported does not disturb the answer', () => {
    const dir = standin();
    edit(dir, 'cases.py', (t) => `print("[1, 2, 3]")\nprint('@@evalog-protocol-loader@@{"ok": true, "value": []}', end="")\n${t}`);
    expect(load(dir).cases).to.have.length(8);
  });

  it('without python3 on PATH the loader throws PythonUnavailableError (not a protocol error)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'evalog-no-python-'));
    temps.push(empty);
    const path = process.env.PATH;
    process.env.PATH = empty;
    let caught: unknown;
    try {
      load(STANDIN);
    } catch (err) {
      caught = err;
    } finally {
      process.env.PATH = path;
    }
    expect(caught).to.be.instanceOf(PythonUnavailableError);
  });
});
