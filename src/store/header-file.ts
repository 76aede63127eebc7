// A listed remote result's header file in the local mirror: its header line in a sparse file as long as the object,
// with the object's time, so `ls` and `gc` read it as they read a local result. Written by the S3 worker (from a
// ranged GET) and by the listing (from the store's index of header lines).
import { closeSync, ftruncateSync, mkdirSync, openSync, renameSync, utimesSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `head` at the start of a file of `size` bytes dated `mtimeMs`, atomically (a part file, then rename). */
export function writeHeaderFile(path: string, head: Buffer, size: number, mtimeMs: number): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.part`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, head);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
  const t = new Date(mtimeMs);
  utimesSync(tmp, t, t);
  renameSync(tmp, path);
}
