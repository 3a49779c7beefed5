// Reading one run's events in order, once (read) or following live (subscribe).
import { watch, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { decodeEvent, withSeq, type StoredEvent } from '../../events/index.js';
import { checkHeader, HEADER_BYTES } from './format.js';
import { FrameScanner } from './scan.js';
import type { RunWriter } from './writer.js';

/** A wake-up flag a follower sleeps on; bumped by in-process commits, fs.watch, abort and close. */
export class Wakeup {
  version = 0;
  #waiter: (() => void) | undefined;

  /** Wakes the follower (or makes its next wait return at once). */
  bump(): void {
    this.version += 1;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  /** Sleeps until a bump after `since`, or at most `ms` (the poll that covers missed watch events). */
  wait(since: number, ms: number): Promise<void> {
    if (this.version !== since) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiter = done;
    });
  }
}

/** What a stream needs from the log that owns it. */
export interface StreamSource {
  file: string;
  pollIntervalMs: number;
  /** This log's writer of the run, if any: then only durable bytes are read. */
  writer(): RunWriter | undefined;
  closed(): boolean;
  /** Registers for in-process commit notifications; returns the unregister function. */
  register(wake: Wakeup): () => void;
}

/** Yields the run's events from seq `from`; with `follow`, keeps yielding new ones until stopped. */
export async function* streamEvents(src: StreamSource, from: number, follow?: { signal?: AbortSignal }): AsyncGenerator<StoredEvent> {
  const wake = new Wakeup();
  const signal = follow?.signal;
  const stopped = () => src.closed() || signal?.aborted === true;
  const onAbort = () => wake.bump();
  const unregister = follow ? src.register(wake) : undefined;
  signal?.addEventListener('abort', onAbort, { once: true });
  let fh: FileHandle | null = null;
  let watcher: FSWatcher | undefined;
  let scanner: FrameScanner | undefined;
  let seq = 0; // seq of the frame just before scanner.offset
  let next = from; // seq of the next event to yield
  let resumeAt: number | undefined; // byte offset of seq `next`'s frame, once events came from the writer's tail
  try {
    while (!(follow && stopped())) {
      const version = wake.version;
      // Following this process's own writer: what it has just made durable comes from memory, not the file.
      const tail = follow ? src.writer()?.committedFrom(next) : undefined;
      if (tail) {
        for (let i = tail.start; i < tail.end; i += 1) {
          yield withSeq(tail.events[i]!, next);
          next += 1;
          resumeAt = tail.ends[i];
          if (stopped()) return;
        }
        continue;
      }
      if (!scanner) {
        fh ??= await openReadable(src.file);
        if (fh) {
          const start = resumeAt === undefined ? src.writer()?.startFor(next) : undefined;
          scanner = new FrameScanner(fh, src.file, resumeAt ?? start?.offset ?? HEADER_BYTES);
          seq = resumeAt === undefined ? (start?.seqBefore ?? 0) : next - 1;
          resumeAt = undefined;
          // Another process's appends are seen through fs.watch (and the poll, when it misses).
          if (follow && !src.writer()) watcher ??= watchQuietly(src.file, wake);
        }
      } else if (resumeAt !== undefined) {
        scanner.offset = resumeAt;
        seq = next - 1;
        resumeAt = undefined;
      }
      if (scanner) {
        const limit = src.writer()?.durableSize ?? (await fh!.stat()).size;
        // A buffered chunk of frames at a time: no await per frame between the file and the consumer.
        for await (const batch of scanner.batches(limit)) {
          for (let i = 0; i < batch.offsets.length; i += 1) {
            seq += 1;
            if (seq >= next) {
              // The decoded event is this stream's own object: give it its seq in place (withSeq copies).
              let event: StoredEvent;
              try {
                event = decodeEvent(batch.payload(i), src.file) as StoredEvent;
              } catch {
                // Decoding is deterministic: again, with the byte offset in the message (built only now).
                event = decodeEvent(batch.payload(i), `${src.file} at byte ${batch.offsets[i]}`) as StoredEvent;
              }
              (event as { seq: number }).seq = seq;
              next = seq + 1;
              yield event;
            }
            if (follow && stopped()) return;
          }
        }
      }
      if (!follow) return;
      await wake.wait(version, src.pollIntervalMs);
    }
  } finally {
    unregister?.();
    signal?.removeEventListener('abort', onAbort);
    watcher?.close();
    await fh?.close();
  }
}

/** Opens the log for reading, or null while it does not exist (yet). */
async function openReadable(file: string): Promise<FileHandle | null> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    await fh.read(header, 0, HEADER_BYTES, 0);
    checkHeader(header, file);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

function watchQuietly(file: string, wake: Wakeup): FSWatcher | undefined {
  try {
    const watcher = watch(file, { persistent: false }, () => wake.bump());
    watcher.on('error', () => watcher.close()); // the poll still covers it
    return watcher;
  } catch {
    return undefined;
  }
}
