// Blobs in NATS: a KV bucket for anything that fits in one message (a direct get is one round
// trip), an object store of the same name for larger ones (chunked). Keys are `<runId>.<sha256>`,
// so one run's blobs stay apart from another's, as they do beside the embedded log.
import { createHash } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { JetStreamApiError, JetStreamApiCodes, StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { BlobNotFoundError, LogCorruptedError } from '../errors.js';
import type { BlobStore } from '../types.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
// Room for the subject and headers of a KV put within the server's max_payload.
const HEADROOM = 16 * 1024;

/** The blob buckets of one log, opened on first use. */
export class BlobBuckets {
  private kvOpen?: Promise<KV>;
  private objOpen?: Promise<ObjectStore>;

  constructor(private readonly js: JetStreamClient, readonly bucket: string, private readonly maxPayload: () => number) {}

  /** The largest blob kept in the KV bucket. */
  get kvLimit(): number {
    return this.maxPayload() - HEADROOM;
  }

  /** The KV bucket, created on first use. */
  kv(): Promise<KV> {
    this.kvOpen ??= new Kvm(this.js).create(this.bucket, { history: 1, storage: StorageType.File }).catch((e) => {
      this.kvOpen = undefined;
      throw e;
    });
    return this.kvOpen;
  }

  /** The object store of the same name, created on first use by a large put. */
  obj(): Promise<ObjectStore> {
    this.objOpen ??= new Objm(this.js).create(this.bucket, { storage: StorageType.File }).catch((e) => {
      this.objOpen = undefined;
      throw e;
    });
    return this.objOpen;
  }

  /** The object store if it exists (a lookup must not create it); absence is not cached. */
  async objIfExists(): Promise<ObjectStore | null> {
    if (this.objOpen) return this.objOpen;
    try {
      return await this.openExisting();
    } catch (e) {
      if ((e as Error).message === 'object store not found') return null;
      throw e;
    }
  }

  private openExisting(): Promise<ObjectStore> {
    this.objOpen ??= new Objm(this.js).open(this.bucket).catch((e) => {
      this.objOpen = undefined;
      throw e;
    });
    return this.objOpen;
  }
}

/** The BlobStore of one run. */
export class JetStreamBlobStore implements BlobStore {
  constructor(private readonly buckets: BlobBuckets, private readonly runId: string) {}

  async put(bytes: Uint8Array): Promise<string> {
    const hash = sha256(bytes);
    if (bytes.length <= this.buckets.kvLimit) {
      try {
        await (await this.buckets.kv()).create(this.key(hash), bytes);
      } catch (e) {
        // "wrong last sequence": the key exists, and the same key means the same bytes.
        if (!(e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamWrongLastSequence)) throw e;
      }
    } else {
      const obj = await this.buckets.obj();
      if (!(await obj.info(this.key(hash)))) await obj.putBlob({ name: this.key(hash) }, bytes);
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
    return (await this.objInfo(key)) !== null;
  }

  private key(hash: string): string {
    return `${this.runId}.${hash}`;
  }

  private async fromKv(key: string): Promise<Uint8Array | null> {
    const entry = await (await this.buckets.kv()).get(key);
    return entry && entry.operation === 'PUT' ? entry.value : null;
  }

  private async fromObj(key: string): Promise<Uint8Array | null> {
    if (!(await this.objInfo(key))) return null;
    return (await this.buckets.obj()).getBlob(key);
  }

  // Large blobs are rare: look in the object store only once a KV lookup missed.
  private async objInfo(key: string) {
    const obj = await this.buckets.objIfExists();
    const info = obj ? await obj.info(key) : null;
    return info && !info.deleted ? info : null;
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
