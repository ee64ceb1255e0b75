/**
 * An S3-compatible server on loopback for tests (s3rver, objects in a temp directory), counting
 * every byte it sends. Starting it fails loudly: a suite that needs it never skips.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, promises as fs, rmSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3LakeOptions } from '../../src/adapters/lake-s3/s3-objects.js';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: { address: string; port: number; directory: string; silent: boolean; configureBuckets?: { name: string }[] }) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

/** s3rver's fixed credentials (it checks signatures against these). */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  /** Where the server keeps its objects (`<dir>/<bucket>/<key>._S3rver_object`). */
  directory: string;
  /** Adapter options for this server. */
  options: S3LakeOptions;
  client: S3Client;
  /** Bytes the server has sent so far (headers and bodies, all connections). */
  bytesSent(): number;
  /** Uploads every file under `local` to `s3://bucket/<prefix>/<relative path>`, following no links. */
  upload(local: string, prefix: string): Promise<number>;
  /** Path where the server stores `key`: files written there are objects (for seeding large fixtures without uploading them). */
  objectPath(key: string): string;
  close(): Promise<void>;
}

export async function startLoopbackS3(bucket = 'lake'): Promise<LoopbackS3> {
  const directory = mkdtempSync(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
  let address: { port: number };
  try {
    address = await server.run();
  } catch (e) {
    throw new Error(`could not start the loopback S3 server (s3rver): ${(e as Error).message}`);
  }
  let closed = 0;
  const open = new Set<Socket>();
  server.httpServer!.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      closed += socket.bytesWritten;
      open.delete(socket);
    });
  });
  const endpoint = `http://127.0.0.1:${address.port}`;
  const options: S3LakeOptions = { endpoint, region: 'us-east-1', ...CREDENTIALS, forcePathStyle: true, requestTimeoutMs: 20_000 };
  // A copy: the SDK marks the credentials it is given (`$source`), and a later server's options spread CREDENTIALS.
  const client = new S3Client({ endpoint, region: 'us-east-1', credentials: { ...CREDENTIALS }, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  await client.send(new CreateBucketCommand({ Bucket: bucket })).catch(() => undefined); // configureBuckets made it
  return {
    endpoint,
    bucket,
    directory,
    options,
    client,
    bytesSent: () => closed + [...open].reduce((s, x) => s + x.bytesWritten, 0),
    upload: async (local, prefix) => {
      let n = 0;
      const walk = async (dir: string, rel: string): Promise<void> => {
        for (const e of await fs.readdir(dir, { withFileTypes: true })) {
          const full = path.join(dir, e.name);
          const key = `${rel}${e.name}`;
          if (e.isDirectory()) await walk(full, `${key}/`);
          else if (e.isFile()) {
            await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix ? `${prefix}/` : ''}${key}`, Body: await fs.readFile(full) }));
            n++;
          }
        }
      };
      await walk(local, '');
      return n;
    },
    objectPath: (key) => {
      const parts = key.split('/');
      return path.join(directory, bucket, ...parts.slice(0, -1), `${parts[parts.length - 1]}._S3rver_object`);
    },
    close: async () => {
      client.destroy();
      for (const s of open) s.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
