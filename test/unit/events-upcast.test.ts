import { expect } from 'chai';
import { Packr } from 'msgpackr';
import { decodeEvent, encodeEvent, NewerSchemaError, UnreadableEventError, type EvalogEvent } from '../../src/events/index.js';

const packr = new Packr({ useRecords: false });
const v1Graded = {
  id: 'r/j:a:1/9',
  runId: 'r',
  jobId: 'j:a:1',
  type: 'JobGraded',
  v: 1,
  at: '2026-01-01T00:00:00.000Z',
  actor: 'job/j:a:1/grader',
  data: { passed: true, checksPassed: 3, checksTotal: 3 },
};

describe('event codec and upcasting', () => {
  it('upcasts a v1 JobGraded on read to v2, with firstRevisionPassed unknown (null), never false', () => {
    const e = decodeEvent(packr.pack(v1Graded), 'test');
    expect(e.v).to.equal(2);
    expect(e.data).to.deep.equal({ passed: true, checksPassed: 3, checksTotal: 3, firstRevisionPassed: null });
  });

  it('upcasts a v1 TaskDelegated on read to v2 with no acceptance criteria recorded (null)', () => {
    const v1 = { ...v1Graded, id: 'r/j:a:1/3', type: 'TaskDelegated', actor: 'job/j:a:1/parent', data: { mode: 'snapshot', brief: 'Do it.', words: 2 } };
    const e = decodeEvent(packr.pack(v1), 'test');
    expect(e.v).to.equal(2);
    expect(e.data).to.deep.equal({ mode: 'snapshot', brief: 'Do it.', words: 2, acceptanceCriteria: null });
  });

  it('round-trips a current event unchanged', () => {
    const e = { ...v1Graded, v: 2, data: { ...v1Graded.data, firstRevisionPassed: false } } as EvalogEvent;
    expect(decodeEvent(encodeEvent(e), 'test')).to.deep.equal(e);
  });

  it('refuses an event from a newer schema, naming the type, version and place', () => {
    expect(() => decodeEvent(packr.pack({ ...v1Graded, v: 7 }), 'log.evlog at byte 42')).to.throw(
      NewerSchemaError,
      /log\.evlog at byte 42: JobGraded has schema version 7.*upgrade evalog/,
    );
  });

  it('refuses an unknown type and a non-object', () => {
    expect(() => decodeEvent(packr.pack({ ...v1Graded, type: 'Nope' }), 'x')).to.throw(UnreadableEventError, /unknown event type "Nope"/);
    expect(() => decodeEvent(packr.pack(42), 'x')).to.throw(UnreadableEventError, /not an object/);
  });
});
