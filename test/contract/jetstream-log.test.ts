// The shared EventLog contract against the JetStream log on a real nats-server. One server for the
// file; every test gets its own stream, subject prefix and blob bucket, removed afterwards.
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JetStreamEventLog, type JetStreamLogOptions } from '../../src/log/jetstream/index.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { eventLogContract } from './eventlog.contract.js';

describe('JetStream log', function () {
  this.timeout(60_000);
  let server: NatsServerHandle;
  let admin: NatsConnection;
  before(async () => {
    server = await startNatsServer();
    admin = await connect({ servers: server.url });
  });
  after(async () => {
    await admin?.close();
    await server?.stop();
  });

  eventLogContract('JetStream', async () => {
    const tag = randomBytes(4).toString('hex');
    const options: JetStreamLogOptions = {
      servers: server.url,
      streamName: `EVALOG_T${tag}`,
      subjectPrefix: `evt${tag}`,
      blobBucket: `blobs-${tag}`,
    };
    const log = await JetStreamEventLog.connect(options);
    let current = log;
    return {
      log,
      reopen: async () => (current = await JetStreamEventLog.connect(options)),
      cleanup: async () => {
        await log.close();
        await current.close();
        await removeStreams(admin, [options.streamName!, `KV_${options.blobBucket}`, `OBJ_${options.blobBucket}`]);
      },
    };
  });
});

/** Deletes the named streams that exist. */
async function removeStreams(nc: NatsConnection, names: string[]): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const name of names) await jsm.streams.delete(name).catch(() => false);
}
