import { expect } from 'chai';
import { EVENT_TYPES, type EventType, type StoredEvent } from '../../src/events/index.js';
import {
  artifactsProjection,
  baseRowsProjection,
  jobStatesProjection,
  PROJECTION_NAMES,
  provenanceProjection,
  ROUTES,
  typesRoutedTo,
  type Projection,
  type ProjectionName,
} from '../../src/projections/index.js';
import { usageProjection } from '../../src/projections/usage/index.js';

// canHandle reads the type alone: a probe of each type is enough to ask every projection.
const probe = (type: EventType) => ({ type }) as StoredEvent;

describe('projection routing table', () => {
  it('routes every event type of src/events, and nothing else', () => {
    expect(Object.keys(ROUTES).sort()).to.deep.equal([...EVENT_TYPES]);
  });

  it('names only known projections, each at most once per type, and every projection reads some type', () => {
    const table: Readonly<Record<EventType, readonly ProjectionName[]>> = ROUTES;
    for (const t of EVENT_TYPES) {
      expect(PROJECTION_NAMES, t).to.include.members([...table[t]]);
      expect(new Set(table[t]).size, t).to.equal(table[t].length);
    }
    for (const p of PROJECTION_NAMES) expect(typesRoutedTo(p), p).to.not.be.empty;
  });

  it("each projection's canHandle is the table's: it reads exactly the types routed to it", () => {
    const projections: [ProjectionName, Projection<unknown, unknown>][] = [
      ['rows', baseRowsProjection],
      ['usage', usageProjection],
      ['provenance', provenanceProjection],
      ['artifacts', artifactsProjection(() => 'txt')],
      ['job-states', jobStatesProjection],
    ];
    for (const [name, p] of projections) {
      expect(p.name).to.equal(name);
      expect(
        EVENT_TYPES.filter((t) => p.canHandle(probe(t))),
        name,
      ).to.deep.equal(typesRoutedTo(name));
    }
  });

  it('a table that leaves out an event type does not compile', () => {
    const { RunStarted: _, ...rest } = ROUTES;
    // @ts-expect-error RunStarted is not routed: the compiler refuses the table.
    const missing: Record<EventType, readonly ProjectionName[]> = rest;
    expect(Object.keys(missing)).to.have.length(EVENT_TYPES.length - 1);
  });
});
