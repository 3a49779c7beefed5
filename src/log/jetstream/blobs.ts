// Blobs in NATS: a KV bucket for anything that fits in one message (a direct get is one round
// trip), an object store of the same name for larger ones (chunked). Keys are `<runId>.<sha256>`,
// so one run's blobs stay apart from another's, as they do beside the embedded log. Every request
// retries through a server restart (see retry.ts), as appends do.
import type { JetStreamClient } from '@nats-io/jetstream';
import { JetStreamApiError, JetStreamApiCodes, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { BlobNotFoundError, LogCorruptedError } from '../errors.js';
import type { BlobStore } from '../types.js';
import { sha256 } from '../../core/canonical.js';
import { retrying, type RetryContext, type RetryOptions } from './retry.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
// Room for the subject and headers of a KV put within the server's max_payload.
const HEADROOM = 16 * 1024;

/** The blob buckets of one log, opened on first use. */
export class BlobBuckets {
  private kvOpen?: Promise<KV>;
  private objOpen?: Promise<ObjectStore>;

  constructor(
    private readonly js: JetStreamClient,
    readonly bucket: string,
    private readonly maxPayload: () => number,
    readonly ctx: RetryContext,
  ) {}

  /** The largest blob kept in the KV bucket. */
  get kvLimit(): number {
    return this.maxPayload() - HEADROOM;
  }

  /** The KV bucket, created on first use. */
  kv(): Promise<KV> {
    this.kvOpen ??= this.retry(`opening KV bucket ${this.bucket}`, () => new Kvm(this.js).create(this.bucket, { history: 1, storage: StorageType.File })).catch(
      (e) => {
        this.kvOpen = undefined;
        throw e;
      },
    );
    return this.kvOpen;
  }

  /** The object store of the same name, created on first use by a large put. */
  obj(): Promise<ObjectStore> {
    this.objOpen ??= this.retry(`opening object store ${this.bucket}`, () => new Objm(this.js).create(this.bucket, { storage: StorageType.File })).catch(
      (e) => {
        this.objOpen = undefined;
        throw e;
      },
    );
    return this.objOpen;
  }

  /** The object store if it exists (a lookup must not create it); absence is not cached. */
  async objIfExists(): Promise<ObjectStore | null> {
    if (this.objOpen) return this.objOpen;
    const found = await this.retry(`looking up object store ${this.bucket}`, () =>
      new Objm(this.js).open(this.bucket).catch((e: Error) => {
        if (e.message === 'object store not found') return null;
        throw e;
      }),
    );
    if (found) this.objOpen ??= Promise.resolve(found);
    return found;
  }

  /** Runs one request of this log's blobs with retries through transient failures. */
  retry<T>(operation: string, attempt: () => Promise<T>, o?: RetryOptions): Promise<T> {
    return retrying(this.ctx, operation, attempt, o);
  }
}

/** The BlobStore of one run. */
export class JetStreamBlobStore implements BlobStore {
  constructor(
    private readonly buckets: BlobBuckets,
    private readonly runId: string,
  ) {}

  async put(bytes: Uint8Array): Promise<string> {
    const hash = sha256(bytes);
    const key = this.key(hash);
    const where = `blob ${key} in bucket ${this.buckets.bucket}`;
    if (bytes.length <= this.buckets.kvLimit) {
      const kv = await this.buckets.kv();
      await this.buckets.retry(`storing ${where}`, async () => {
        try {
          await kv.create(key, bytes);
        } catch (e) {
          // "wrong last sequence": the key exists (maybe from our own attempt whose answer was
          // lost), and the same key means the same bytes.
          if (!(e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamWrongLastSequence)) throw e;
        }
      });
    } else {
      const obj = await this.buckets.obj();
      // Not abandoned at a disconnect: a put left running could race its own retry. The library's
      // timeout bounds each of its chunk publishes, and the retry looks for a finished put first.
      const attempt = async () => {
        const info = await obj.info(key);
        if (!info || info.deleted) await obj.putBlob({ name: key }, bytes);
      };
      await this.buckets.retry(`storing ${where} (object store)`, attempt, { guard: false });
    }
    return hash;
  }

  async get(hash: string): Promise<Uint8Array> {
    if (!SHA256_HEX.test(hash)) throw new BlobNotFoundError(hash);
    const key = this.key(hash);
    const bytes = (await this.fromKv(key)) ?? (await this.fromObj(key));
    if (!bytes) throw new BlobNotFoundError(hash);
    if (sha256(bytes) !== hash) {
      const where = `${this.buckets.bucket}/${key}`;
      throw new LogCorruptedError(`${where}: blob content does not match its sha256`, where, 0);
    }
    return bytes;
  }

  async has(hash: string): Promise<boolean> {
    if (!SHA256_HEX.test(hash)) return false;
    const key = this.key(hash);
    if ((await this.fromKv(key)) !== null) return true;
    // Large blobs are rare: look in the object store only once a KV lookup missed.
    const obj = await this.buckets.objIfExists();
    const info = obj ? await this.buckets.retry(`looking up blob ${key} in object store ${this.buckets.bucket}`, () => obj.info(key)) : null;
    return info !== null && !info.deleted;
  }

  private key(hash: string): string {
    return `${this.runId}.${hash}`;
  }

  private async fromKv(key: string): Promise<Uint8Array | null> {
    const kv = await this.buckets.kv();
    const entry = await this.buckets.retry(`reading blob ${key} from KV bucket ${this.buckets.bucket}`, () => kv.get(key));
    return entry && entry.operation === 'PUT' ? entry.value : null;
  }

  private async fromObj(key: string): Promise<Uint8Array | null> {
    const obj = await this.buckets.objIfExists();
    if (!obj) return null;
    const watch = this.buckets.ctx.watch;
    return this.buckets.retry(`reading blob ${key} from object store ${this.buckets.bucket}`, () => readObject(obj, key, watch.next));
  }
}

/**
 * The bytes of an object, or null if there is none. `lost` rejects at the next disconnect or
 * reconnect: the read then stops its consumer (an abandoned one would go on in the background)
 * and fails, to be retried.
 */
async function readObject(obj: ObjectStore, key: string, lost: Promise<never>): Promise<Uint8Array | null> {
  const getting = obj.get(key);
  let result: Awaited<typeof getting>;
  try {
    result = await Promise.race([getting, lost]);
  } catch (e) {
    getting
      .then(
        (late) => late?.data.cancel(),
        () => undefined,
      )
      .catch(() => undefined);
    throw e;
  }
  if (!result) return null;
  const failed = result.error.then(
    (e) => e,
    (e: unknown) => e,
  ); // observed even if the read fails first
  const reader = result.data.getReader();
  const parts: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), lost]);
      if (done) break;
      parts.push(value);
    }
  } catch (e) {
    reader.cancel().catch(() => undefined);
    throw e;
  }
  const error = await failed;
  if (error) throw error;
  return Buffer.concat(parts);
}
