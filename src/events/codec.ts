import { Packr } from 'msgpackr';
import type { EvalogEvent, StoredEvent } from './schema.js';
import { upcast } from './upcast.js';

// Plain maps only: shared record structures would make old logs unreadable without them.
// variableMapSize would save a byte or two per map at a third of the encode speed.
const packr = new Packr({ useRecords: false, mapsAsObjects: true });

/** Encodes one event (without `seq`) as a msgpack map. */
export function encodeEvent(event: EvalogEvent): Buffer {
  return packr.pack(event);
}

/** Decodes and upcasts one stored event; `where` names the place for error messages. */
export function decodeEvent(bytes: Uint8Array, where: string): EvalogEvent {
  return upcast(packr.unpack(bytes), where);
}

/** Attaches the position the log assigned. */
export function withSeq(event: EvalogEvent, seq: number): StoredEvent {
  return { ...event, seq } as StoredEvent;
}
