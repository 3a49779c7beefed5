// Waiting for the next save: fs.watch on the folders of the watched files for a quick answer, and
// a poll of their states beside it, because fs.watch misses changes on some mounts (a container's
// bind mount edited from the host, network file systems) and cannot be asked whether it works.
// Either only says "look again"; a change is what the snapshots say, once two looks a debounce
// apart agree (an editor's save is several writes and renames).
import { watch, type FSWatcher } from 'node:fs';
import { changedFiles, snapshot, type Snapshot, type WatchSet } from './watch-files.js';

export interface TriggerOptions {
  /** Ends the wait (Ctrl-C): the wait then gives null. */
  signal?: AbortSignal;
  /** How often the states are read with no event (0: never; fs.watch alone). */
  pollMs: number;
  /** How long the states must hold still before a change counts. */
  debounceMs: number;
  /** Whether to listen with fs.watch (false: the poll alone). */
  useFsWatch: boolean;
  /** Told once per folder fs.watch cannot listen to (the poll still sees it). */
  onWatchError?(dir: string, err: Error): void;
}

/** The defaults of `evalog run --watch`. */
export const TRIGGER_DEFAULTS: Omit<TriggerOptions, 'signal'> = { pollMs: 1000, debounceMs: 150, useFsWatch: true };

/** A change seen: the states after it and the files whose bytes differ from `since`. */
export interface Change {
  snap: Snapshot;
  changed: string[];
}

/**
 * Resolves with the first change of the set's files against `since` (at once when one happened
 * already, during the run just ended), or null once the signal aborts.
 */
export async function nextChange(set: WatchSet, since: Snapshot, options: TriggerOptions): Promise<Change | null> {
  const { signal } = options;
  if (signal?.aborted) return null;
  let last = await snapshot(set, since);
  // A change during the run just ended counts once it holds still like any other.
  return new Promise<Change | null>((resolveWait) => {
    const watchers: FSWatcher[] = [];
    let timer: NodeJS.Timeout | null = null;
    let poll: NodeJS.Timeout | null = null;
    let busy = false;
    let again = false;
    let done = false;
    const finish = (result: Change | null) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      for (const w of watchers) w.close();
      signal?.removeEventListener('abort', onAbort);
      resolveWait(result);
    };
    const onAbort = () => finish(null);
    // One look at a time; a look asked for during one is made after it.
    const look = async (): Promise<void> => {
      if (done) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        const now = await snapshot(set, last);
        const moving = changedFiles(last, now).length > 0;
        last = now;
        const changed = changedFiles(since, now);
        if (moving) schedule();
        else if (changed.length > 0) finish({ snap: now, changed });
      } finally {
        busy = false;
        if (again && !done) {
          again = false;
          schedule();
        }
      }
    };
    const schedule = () => {
      if (done) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void look(), options.debounceMs);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (options.useFsWatch)
      for (const dir of last.dirs) {
        try {
          const w = watch(dir, { persistent: true }, () => schedule());
          w.on('error', (err) => options.onWatchError?.(dir, err));
          watchers.push(w);
        } catch (err) {
          options.onWatchError?.(dir, err as Error);
        }
      }
    if (options.pollMs > 0) poll = setInterval(() => void look(), options.pollMs);
    // What changed while the run ran (or before the watchers listened) is seen by a first look.
    schedule();
  });
}
