// Puts COUNT copies of one lro result into a bucket under PREFIX, each with an id of its own (in its key and its
// header), 16 requests at a time, and prints how long the server itself takes to list them (ListObjectsV2, 1,000
// keys a page): the floor a listing of the store stands on. Usage: node bench/s3-fill.mjs RESULT_FILE BUCKET PREFIX
// COUNT (AWS_ENDPOINT_URL and credentials from the environment).
import { readFileSync } from 'node:fs';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

const [file, Bucket, prefix, countArg] = process.argv.slice(2);
const count = Number(countArg);
const body = readFileSync(file, 'utf8');
const id = /lro-[a-z0-9_-]+-([0-9A-Z]{26})\.jsonl$/.exec(file)[1];
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const digits = (i) => Array.from({ length: 10 }, (_, k) => CROCKFORD[Math.floor(i / 32 ** (9 - k)) % 32]).join('');
const client = new S3Client({ forcePathStyle: true, region: process.env.AWS_REGION || 'us-east-1' });
let next = 0;
const lane = async () => {
  while (next < count) {
    const x = id.slice(0, 16) + digits(next++);
    await client.send(new PutObjectCommand({ Bucket, Key: `${prefix}/lro-offload-${x}.jsonl`, Body: body.split(id).join(x) }));
  }
};
await Promise.all(Array.from({ length: 16 }, lane));
const t0 = process.hrtime.bigint();
let token;
do {
  const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: `${prefix}/`, ContinuationToken: token }));
  token = page.IsTruncated ? page.NextContinuationToken : undefined;
} while (token);
console.log((Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2));
client.destroy();
