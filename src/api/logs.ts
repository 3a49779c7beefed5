// The event logs' factories for library users: the embedded file log (one folder per run) and
// NATS JetStream. Both implement EventLog; evalog/testing adds an in-memory one.
import { FileEventLog, type FileEventLogOptions } from '../log/file/index.js';
import { JetStreamEventLog, type JetStreamLogOptions } from '../log/jetstream/index.js';

/** Opens the embedded file log under `root` (runs are `<root>/<runId>/log/`). */
export function openFileLog(options: FileEventLogOptions): Promise<FileEventLog> {
  return FileEventLog.open(options);
}

/** Connects to the JetStream log (creating its stream if needed) on the NATS server(s) given. */
export function connectJetStreamLog(options: JetStreamLogOptions): Promise<JetStreamEventLog> {
  return JetStreamEventLog.connect(options);
}
