/** Where the bytes of uploads live: local files (encrypted at rest) or an S3-compatible bucket. */
export interface BlobStore {
  put(storageKey: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes, or undefined when nothing is stored under the key. */
  get(storageKey: string): Promise<Buffer | undefined>;
}
