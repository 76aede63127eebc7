// The raw transfer lro's S3 store is compared with: one file uploaded with the SDK as `aws s3 cp` does (lib-storage,
// the same part size and queue as lro's worker), then downloaded to a file. Usage: node bench/s3-upload.mjs
// up|down FILE BUCKET KEY (AWS_ENDPOINT_URL and credentials from the environment).
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

const [mode, file, Bucket, Key] = process.argv.slice(2);
const client = new S3Client({ forcePathStyle: true, region: process.env.AWS_REGION || 'us-east-1' });
if (mode === 'up') {
  const params = { Bucket, Key, Body: createReadStream(file) };
  await new Upload({ client, params, queueSize: 2, partSize: 8 * 1024 * 1024 }).done();
} else {
  const r = await client.send(new GetObjectCommand({ Bucket, Key }));
  await pipeline(r.Body, createWriteStream(file));
}
client.destroy();
