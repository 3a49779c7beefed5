import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gradeArtifact } from '../../src/grading.js';
import { TASK_SHAPES, TASKS_DIR, type Task } from '../../src/manifest.js';
import { checkIds, loadTasks, TaskManifestError } from '../../src/tasks.js';

const tasks = loadTasks();
const failedIds = (result: { checks: { id: string; passed: boolean }[] }) =>
  result.checks
    .filter((c) => !c.passed)
    .map((c) => c.id)
    .sort();
/** The text the snapshot arm passes on besides the brief. */
const parentContext = (task: Task) => [...task.history.map((m) => m.content), task.summary ?? ''].join('\n');

describe('context-snapshot tasks: loadTasks', () => {
  it('loads the eight tasks in protocol order with their category, kind and check count', () => {
    expect(tasks.map((t) => t.id)).to.deep.equal(Object.keys(TASK_SHAPES));
    for (const task of tasks) {
      const shape = TASK_SHAPES[task.id as keyof typeof TASK_SHAPES];
      expect({ category: task.category, kind: task.kind, checks: checkIds(task).length }, task.id).to.deep.equal(shape);
    }
  });

  it('holds 51 hidden checks: 7, 8, 8, 5, 7, 5, 4, 7', () => {
    const counts = tasks.map((t) => checkIds(t).length);
    expect(counts).to.deep.equal([7, 8, 8, 5, 7, 5, 4, 7]);
    expect(counts.reduce((a, b) => a + b, 0)).to.equal(51);
  });

  it('keeps the brief free of the answers (except self_contained, whose brief is the whole task)', () => {
    for (const task of tasks) {
      if (task.kind !== 'json' || task.id === 'self_contained') continue;
      const strings = Object.values(task.expected)
        .flat()
        .filter((v): v is string => typeof v === 'string');
      for (const value of strings) expect(task.brief, `${task.id}: ${value}`).not.to.include(value);
    }
  });

  it('names every bundled document in the parent context, not in the brief', () => {
    // ci-run-412 is a decoy: the history only gives the pattern ci-run-<build> and the old build number.
    const decoys: Record<string, string[]> = { fresh_evidence: ['ci-run-412'] };
    expect(parentContext(tasks.find((t) => t.id === 'fresh_evidence')!))
      .to.include('ci-run-<build>')
      .and.to.include('412');
    for (const task of tasks) {
      for (const name of Object.keys(task.references)) {
        if (!decoys[task.id]?.includes(name)) expect(parentContext(task), `${task.id}: ${name}`).to.include(name);
        expect(task.brief, `${task.id}: ${name}`).not.to.include(name);
      }
    }
  });

  it('keeps the invoice rules in the summary only, and gives self_contained 24 unrelated notes', () => {
    const invoice = tasks.find((t) => t.id === 'invoice_total')!;
    expect(invoice.summary).to.include('half away from zero').and.to.include('RangeError');
    const history = invoice.history.map((m) => m.content).join('\n');
    expect(history).not.to.include('RangeError');
    expect(history).not.to.include('half away');
    const notes = tasks.find((t) => t.id === 'self_contained')!.history.filter((m) => m.role === 'user');
    expect(notes).to.have.length(24);
  });
});

/** A task manifest as these tests edit it: the parts they reach into typed, every other key as is. */
type RawTask = Record<string, unknown> & { checks: Record<string, unknown>[]; expected: Record<string, unknown>; wrongSolutions: { fails: string[] }[] };

describe('context-snapshot tasks: rejected manifests', () => {
  let dir: string;
  const load = () => loadTasks(pathToFileURL(`${dir}/`));
  const fileOf = (id: string) => join(dir, `${id}.json`);
  const edit = (id: string, change: (raw: RawTask) => void) => {
    const raw = JSON.parse(readFileSync(fileOf(id), 'utf8')) as RawTask;
    change(raw);
    writeFileSync(fileOf(id), JSON.stringify(raw));
  };
  /** Loads the temp copy and returns the error, which must name the file and the field. */
  const rejection = (id: string, field: string): TaskManifestError => {
    let caught: unknown;
    try {
      load();
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(TaskManifestError);
    const err = caught as TaskManifestError;
    expect(err.file).to.equal(fileOf(id));
    expect(err.field).to.equal(field);
    expect(err.message).to.include(`${id}.json`).and.to.include(field);
    return err;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cs-tasks-'));
    cpSync(fileURLToPath(TASKS_DIR), dir, { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts the unchanged copy', () => {
    expect(load().map((t) => t.id)).to.deep.equal(tasks.map((t) => t.id));
  });

  it('rejects a JavaScript task with a check too many', () => {
    edit('pagination', (raw) => raw.checks.push({ id: 'extra', args: [[], 1, 1], expect: null }));
    expect(rejection('pagination', 'checks').message).to.include('expected 8 hidden checks, got 9');
  });

  it('rejects a JSON task with an expected key too few', () => {
    edit('storage_policy', (raw) => delete raw.expected.region);
    expect(rejection('storage_policy', 'expected').message).to.include('expected 7 hidden checks, got 6');
  });

  it('rejects an unknown key, at the top level and inside a check', () => {
    edit('rate_limits', (raw) => (raw.notes = 'x'));
    expect(rejection('rate_limits', 'notes').message).to.include('unknown key');
    edit('rate_limits', (raw) => delete raw.notes);
    edit('invoice_total', (raw) => (raw.checks[2]!.hint = 'x'));
    rejection('invoice_total', 'checks.2.hint');
  });

  it('rejects a check with both expect and throws', () => {
    edit('invoice_total', (raw) => (raw.checks[6]!.expect = 0));
    rejection('invoice_total', 'checks.6');
  });

  it('rejects a wrong category, a wrong kind and an id that is not the file name', () => {
    edit('fresh_evidence', (raw) => (raw.category = 'conversation_requirements'));
    expect(rejection('fresh_evidence', 'category').message).to.include('historical_evidence_boundary');
    edit('fresh_evidence', (raw) => (raw.category = 'historical_evidence_boundary'));
    edit('self_contained', (raw) => (raw.kind = 'javascript'));
    rejection('self_contained', 'functionName');
    edit('self_contained', (raw) => (raw.kind = 'json'));
    edit('release_plan', (raw) => (raw.id = 'release_plans'));
    rejection('release_plan', 'id');
  });

  it('rejects a wrong solution that lists an unknown check', () => {
    edit('email_cleanup', (raw) => raw.wrongSolutions[1]!.fails.push('no_such_check'));
    rejection('email_cleanup', 'wrongSolutions.1.fails.3');
  });

  it('rejects a missing task file and a file that is not one of the eight', () => {
    unlinkSync(fileOf('pagination'));
    expect(rejection('pagination', '(file)').message).to.include('missing task file');
    cpSync(fileURLToPath(new URL('pagination.json', TASKS_DIR)), fileOf('pagination'));
    cpSync(fileOf('rate_limits'), fileOf('rate_limits_v2'));
    rejection('rate_limits_v2', 'id');
  });

  it('rejects a file that is not JSON', () => {
    writeFileSync(fileOf('invoice_total'), '{ "id": "invoice_total",');
    expect(rejection('invoice_total', '(file)').message).to.include('not valid JSON');
  });
});

describe('context-snapshot tasks: graded solutions', () => {
  for (const task of tasks) {
    it(`${task.id}: the reference solution passes every hidden check`, async () => {
      const result = await gradeArtifact(task, task.referenceSolution, 'hidden');
      expect(result.invalidReason, task.id).to.equal(null);
      expect(result.valid).to.equal(true);
      expect(result.checks.map((c) => c.id)).to.deep.equal(checkIds(task));
      expect(failedIds(result), JSON.stringify(result.checks.filter((c) => !c.passed))).to.deep.equal([]);
      expect(result.passed).to.equal(true);
    });

    it(`${task.id}: the reference solution passes the public check`, async () => {
      const result = await gradeArtifact(task, task.referenceSolution, 'public');
      expect(result.passed, JSON.stringify(result)).to.equal(true);
    });

    task.wrongSolutions.forEach((wrong, i) => {
      it(`${task.id}: wrong solution ${i + 1} fails exactly ${wrong.fails.join(', ')}`, async () => {
        const result = await gradeArtifact(task, wrong.content, 'hidden');
        expect(result.valid, String(result.invalidReason)).to.equal(true);
        expect(failedIds(result)).to.deep.equal([...wrong.fails].sort());
        expect(result.passed).to.equal(false);
      });
    });
  }
});
