// The shared EventLog contract against the in-memory log; "reopen" is a second log on the same store.
import { MemoryEventLog, MemoryStore } from '../../src/log/memory/index.js';
import { eventLogContract } from './eventlog.contract.js';

eventLogContract('memory', async () => {
  const store = new MemoryStore();
  const log = MemoryEventLog.open(store);
  let current = log;
  return {
    log,
    reopen: async () => (current = MemoryEventLog.open(store)),
    cleanup: async () => {
      await log.close();
      await current.close();
    },
  };
});
