// The upstream-layout protocol loader (--protocol-dir): the published pins, the pin check before any
// parsing, the YAML config validated by the bundled config's rules, and the recorded source. The
// folder is a stand-in in evalog's own words (test/support/deermem-protocol.ts); the published
// qa_run.json is read from beside the project, never copied in.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type StandInProtocol, writeStandInProtocol } from '../../../../test/support/deermem-protocol.js';
import { MANIFEST_DIR_PATH, writeTestConfig } from '../../../../test/support/longmemeval.js';
import { DEERMEM_PR4789, publishedFolder } from '../../../../test/support/published.js';
import { OFFLINE_PROTOCOL_ID, PUBLISHED_PROTOCOL_ID } from '../../src/config.js';
import { ProtocolPinError, ProtocolValidationError } from '../../src/errors.js';
import { loadProtocol, protocolStatus } from '../../src/protocol.js';
import { loadProtocolDir } from '../../src/protocol-dir.js';
import { PUBLISHED_ARTIFACTS, UPSTREAM_LAYOUT } from '../../src/published-pins.js';

const PUBLISHED = publishedFolder(DEERMEM_PR4789);

function caught(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('memory-eviction --protocol-dir: the published pins', () => {
  PUBLISHED.it('the four pinned hashes are the artifacts of the published qa_run.json', () => {
    const published = JSON.parse(PUBLISHED.read('qa_run.json')) as { protocol_id: string; artifacts: Record<string, string> };
    const { dataset_sha256: _dataset, ...files } = published.artifacts;
    expect({ ...PUBLISHED_ARTIFACTS }).to.deep.equal(files);
    expect(published.protocol_id).to.equal(PUBLISHED_PROTOCOL_ID);
  });

  it('the bundled files are not the published ones: their own protocol id, their own hashes', () => {
    const bundled = loadProtocol();
    expect(bundled.config.protocol_id).to.equal(OFFLINE_PROTOCOL_ID).and.not.equal(PUBLISHED_PROTOCOL_ID);
    for (const [k, v] of Object.entries(bundled.artifacts)) expect(v, k).to.not.equal(PUBLISHED_ARTIFACTS[k as keyof typeof PUBLISHED_ARTIFACTS]);
    expect(protocolStatus(bundled.source)).to.equal('evalog offline variant');
  });

  it("refuses the published protocol's id in evalog's own layout, naming the file and field", () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalog-me-id-'));
    try {
      const { path } = writeTestConfig('0'.repeat(64), { dir, mutate: (c) => (c.protocol_id = PUBLISHED_PROTOCOL_ID) });
      const err = caught(() => loadProtocol(undefined, { configPath: path }));
      expect(err).to.be.instanceOf(ProtocolValidationError);
      expect(err.message).to.include(path).and.include('protocol_id').and.include('--protocol-dir');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('memory-eviction --protocol-dir: a stand-in folder in the upstream layout', () => {
  let dir: string;
  let standIn: StandInProtocol;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-me-dir-'));
    standIn = writeStandInProtocol(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('without --allow-unpinned it is refused before parsing, naming every file with the published and the actual hash', () => {
    // A config that is not even YAML: the pin check comes first, so the refusal is about the hash.
    writeFileSync(standIn.files.config, 'schema_version: [\n');
    const err = caught(() => loadProtocolDir(dir));
    expect(err).to.be.instanceOf(ProtocolPinError);
    const pin = err as ProtocolPinError;
    expect(pin.mismatches.map((m) => m.file)).to.deep.equal([
      standIn.files.config,
      standIn.files.official,
      standIn.files.synthetic,
      standIn.files.answerPrompt,
    ]);
    expect(err.message).to.include(PUBLISHED_ARTIFACTS.config_sha256).and.include(PUBLISHED_ARTIFACTS.answer_prompt_sha256).and.include('--allow-unpinned');
    expect(err.message).to.include(standIn.artifacts.official_manifest_sha256);
    expect(err.message.includes('\n')).to.equal(false);
  });

  it('with --allow-unpinned it loads by the bundled rules and records the layout, folder and each file’s hash', () => {
    const p = loadProtocolDir(dir, { allowUnpinned: true });
    const bundled = loadProtocol();
    expect(p.config.protocol_id).to.equal(OFFLINE_PROTOCOL_ID);
    const { policy, ...hybrid } = p.config.policies.hybrid_v1;
    expect(policy).to.equal('hybrid-v1');
    expect({ ...p.config, policies: { ...p.config.policies, hybrid_v1: hybrid } }).to.deep.equal(bundled.config);
    expect(p.answerPrompt).to.equal(bundled.answerPrompt);
    expect(p.artifacts).to.deep.equal(standIn.artifacts);
    expect(p.source).to.deep.equal({
      layout: 'upstream',
      dir,
      pinned: false,
      files: {
        config: { path: UPSTREAM_LAYOUT.config, sha256: standIn.artifacts.config_sha256 },
        official_manifest: { path: UPSTREAM_LAYOUT.official, sha256: standIn.artifacts.official_manifest_sha256 },
        synthetic_manifest: { path: UPSTREAM_LAYOUT.synthetic, sha256: standIn.artifacts.synthetic_manifest_sha256 },
        answer_prompt: { path: UPSTREAM_LAYOUT.answerPrompt, sha256: standIn.artifacts.answer_prompt_sha256 },
      },
    });
    expect(protocolStatus(p.source)).to.equal('unpinned protocol');
  });

  it('pinned to its own hashes it is a pinned protocol; one changed byte in one file is refused naming that file alone with both hashes', () => {
    const pins = standIn.artifacts;
    expect(protocolStatus(loadProtocolDir(dir, { pins }).source)).to.equal('pinned protocol');
    const bytes = readFileSync(standIn.files.synthetic);
    bytes[bytes.length - 2] = bytes[bytes.length - 2] === 0x7d ? 0x20 : 0x7d; // one byte of the JSON's last line
    writeFileSync(standIn.files.synthetic, bytes);
    const err = caught(() => loadProtocolDir(dir, { pins })) as ProtocolPinError;
    expect(err).to.be.instanceOf(ProtocolPinError);
    expect(err.mismatches).to.have.length(1);
    expect(err.mismatches[0]).to.deep.include({ file: standIn.files.synthetic, expected: pins.synthetic_manifest_sha256 });
    expect(err.message).to.include(standIn.files.synthetic).and.include(pins.synthetic_manifest_sha256).and.include(err.mismatches[0]!.actual);
  });

  it('validates the YAML by the bundled config’s rules: an unknown key, a wrong policy name and a naive evaluation_time name the file and field', () => {
    const cases: [string, (c: Record<string, unknown>) => void, string][] = [
      ['unknown key', (c) => ((c.pool as Record<string, unknown>).extra = 1), 'pool.extra'],
      ['wrong hybrid policy', (c) => ((c.policies as Record<string, Record<string, unknown>>).hybrid_v1!.policy = 'hybrid-v2'), 'policies.hybrid_v1.policy'],
      ['naive time', (c) => (c.evaluation_time = '2026-08-13T00:00:00'), 'evaluation_time'],
      ['capacity out of range', (c) => ((c.pool as Record<string, unknown>).capacities = [5, 7, 10]), 'pool.capacities[2]'],
    ];
    for (const [title, edit, field] of cases) {
      rmSync(dir, { recursive: true, force: true });
      standIn = writeStandInProtocol(dir, { edit });
      const err = caught(() => loadProtocolDir(dir, { allowUnpinned: true }));
      expect(err, title).to.be.instanceOf(ProtocolValidationError);
      expect((err as ProtocolValidationError).file, title).to.equal(standIn.files.config);
      expect(err.message, title).to.include(field);
    }
  });

  it('reads YAML as upstream’s loader does: an unquoted zoned timestamp and an int temperature are accepted; bad YAML names the file', () => {
    const text = readFileSync(standIn.files.config, 'utf8').replace(/evaluation_time: .*\n/, 'evaluation_time: 2026-08-13T02:00:00+02:00\n');
    writeFileSync(standIn.files.config, text);
    const p = loadProtocolDir(dir, { allowUnpinned: true });
    expect(p.evaluationTime.toISOString()).to.equal('2026-08-13T00:00:00.000Z');
    expect(p.config.qa.temperature).to.equal(0);
    writeFileSync(standIn.files.config, `${text}qa: [\n`);
    const err = caught(() => loadProtocolDir(dir, { allowUnpinned: true }));
    expect(err).to.be.instanceOf(ProtocolValidationError);
    expect(err.message)
      .to.include(standIn.files.config)
      .and.match(/not valid YAML/);
  });

  it('a folder without the upstream config, or with a file missing, is refused naming the missing file', () => {
    const bundled = caught(() => loadProtocolDir(MANIFEST_DIR_PATH, { allowUnpinned: true }));
    expect(bundled).to.be.instanceOf(ProtocolValidationError);
    expect(bundled.message).to.include(join(MANIFEST_DIR_PATH, UPSTREAM_LAYOUT.config)).and.include('deermem_eviction/');
    rmSync(standIn.files.answerPrompt);
    const err = caught(() => loadProtocolDir(dir, { allowUnpinned: true }));
    expect(err).to.be.instanceOf(ProtocolValidationError);
    expect(err.message).to.include(standIn.files.answerPrompt).and.include('cannot be read');
  });
});
