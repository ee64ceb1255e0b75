/**
 * The object store under the lake: listing a prefix and reading byte ranges of one object,
 * over any S3-compatible service (`@aws-sdk/client-s3`). Every read is a ranged GET of an
 * explicit `start-end` (never a whole object, never a suffix range, which some S3-compatible
 * servers get wrong), and is charged to the request's byte budget before it is sent.
 */
import { GetObjectCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

export interface S3LakeOptions {
  /** `https://host:port` of an S3-compatible service; default: AWS (or AWS_ENDPOINT_URL[_S3]). */
  endpoint?: string;
  /** Default: AWS_REGION / the AWS profile, else us-east-1. */
  region?: string;
  /** Static credentials; default: the AWS SDK's chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** `endpoint/bucket/key` addressing instead of `bucket.endpoint/key` (MinIO, s3rver, most non-AWS services). */
  forcePathStyle: boolean;
  /** Time bound of one S3 call. */
  requestTimeoutMs: number;
}

export interface ObjectInfo {
  key: string;
  size: number;
  /** Changes when the object does: keys the footer cache. */
  version: string;
  /** When the object was last written, as the listing says. */
  modifiedMs?: number;
}

/** `s3://bucket/prefix` -> bucket and the key prefix (no leading or trailing `/`). */
export function parseS3Root(root: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/*(.*?)\/*$/.exec(root);
  if (!m || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(m[1]!)) throw new Error(`lake.root "${root}": expected s3://bucket[/prefix] with a valid bucket name`);
  return { bucket: m[1]!, prefix: m[2]! };
}

export function isS3Root(root: string): boolean {
  return /^s3:\/\//i.test(root);
}

/** Thrown when a request would read more bytes from the store than its budget allows. */
export class ByteBudgetError extends Error {
  override readonly name = 'ByteBudgetError';
  constructor(
    readonly wanted: number,
    readonly budget: number,
  ) {
    super(`object store read of ${wanted} bytes over the request's budget of ${budget}`);
  }
}

/** Bytes one request may still read; shared by all its range reads. */
export class ByteBudget {
  private spent = 0;
  constructor(readonly limit: number) {}
  charge(n: number): void {
    if (this.spent + n > this.limit) throw new ByteBudgetError(this.spent + n, this.limit);
    this.spent += n;
  }
  get used(): number {
    return this.spent;
  }
}

export class S3Objects {
  private readonly client: S3Client;

  constructor(
    readonly bucket: string,
    options: S3LakeOptions,
  ) {
    const config: S3ClientConfig = {
      forcePathStyle: options.forcePathStyle,
      // Checksums only where S3 requires them: S3-compatible servers differ in what they support.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { requestTimeout: options.requestTimeoutMs, connectionTimeout: options.requestTimeoutMs },
      maxAttempts: 3,
    };
    const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    config.region = region ?? 'us-east-1';
    if (options.endpoint) config.endpoint = options.endpoint;
    if (options.accessKeyId && options.secretAccessKey) {
      config.credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey, ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}) };
    }
    this.client = new S3Client(config);
  }

  /** Every object under `prefix` (which ends with `/`), at most `max` of them (more is an error naming the bound). */
  async list(prefix: string, max: number): Promise<ObjectInfo[]> {
    const out: ObjectInfo[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
      for (const o of page.Contents ?? []) {
        if (o.Key === undefined || o.Size === undefined) continue;
        const modifiedMs = o.LastModified?.getTime();
        out.push({ key: o.Key, size: o.Size, version: `${o.ETag ?? ''}:${o.Size}:${modifiedMs ?? ''}`, ...(modifiedMs !== undefined ? { modifiedMs } : {}) });
      }
      if (out.length > max) throw new TooManyObjectsError(max);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  /** Bytes [start, end) of an object, charged to `budget` first. `signal` aborts the read (rejecting with its reason). */
  async range(key: string, start: number, end: number, budget: ByteBudget, signal?: AbortSignal): Promise<Uint8Array> {
    if (end <= start) return new Uint8Array(0);
    signal?.throwIfAborted();
    budget.charge(end - start);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }), signal ? { abortSignal: signal } : {});
      // A server that ignores Range would send the whole object: refuse it before reading the body.
      if (r.ContentLength !== end - start) {
        (r.Body as { destroy?: () => void } | undefined)?.destroy?.();
        throw new Error(`object store answered ${r.ContentLength} bytes for a range of ${end - start} (${key})`);
      }
      return await r.Body!.transformToByteArray();
    } catch (e) {
      signal?.throwIfAborted();
      throw e;
    }
  }

  close(): void {
    this.client.destroy();
  }
}

export class TooManyObjectsError extends Error {
  override readonly name = 'TooManyObjectsError';
  constructor(readonly max: number) {
    super(`more than ${max} objects under the collection prefix`);
  }
}
