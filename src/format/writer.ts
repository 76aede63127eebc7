// Atomic writing of one result: records go to a temporary file `.lro-*.tmp` in the store (0600, created
// exclusively, never through a symlink); the header, known only at the end, is written last; then fsync and
// rename to `lro-<operation>-<id>.jsonl`. A reader never sees a partial result; a killed writer leaves only the
// temporary file, which `lro gc` removes once stale.
//
// Small results are assembled in memory and written in one go. Once records pass `memoryLimit`, they stream to
// the file after a reserved slot of `headerSlot` bytes for line 1; the header is then written into the slot,
// padded with spaces (JSON allows trailing whitespace). A header too big for its slot (a large JSON envelope)
// costs one copy of the records into a fresh temporary file.
//
// Every record byte is hashed as it is written (format/blocks.ts): commit adds the block hashes and line 1's seal
// to the header, in the room its slot has left (BLOCKS_ROOM is reserved for them).
import {
  close,
  closeSync,
  fdatasync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  constants as fsc,
} from 'node:fs';
import { join } from 'node:path';
import { BLOCKS_ROOM, blocksMember, LeafHasher, sealHeader } from './blocks.js';
import type { RecordSink } from './encoder.js';
import { withMember } from './header.js';
import { MAC_VALUE_PLACEHOLDER, signLine } from './mac.js';
import { resultFileName, tempFileName } from './naming.js';

export interface WriterOptions {
  /** The store, as results are named to the user. */
  dir: string;
  /** Where files are created and renamed: the store itself even if its path is swapped (see PinnedStore). */
  ioDir?: string;
  id: string;
  operation: string;
  /** Identity of the store directory when it was checked; the rename is refused if it changed since. */
  dirIdentity?: { dev: number; ino: number };
  memoryLimit?: number;
  headerSlot?: number;
  /** The store's secret (LRO_STORE_KEY): line 1 gets a MAC under it (format/mac.ts). Never written itself. */
  macKey?: Buffer | null;
}

const DEFAULT_MEMORY = 4 << 20;
const DEFAULT_SLOT = 4096;
const COPY_CHUNK = 1 << 20;
/** Small writes are gathered into a buffer of this size before they reach memory or the file. */
const STAGE = 1 << 20;
/** While a large result streams to disk, flush it every this many bytes in the background, so the final fsync
 * does not wait for the whole file and the disk works while lro encodes. */
const SYNC_EVERY = 64 << 20;

/** Opens a new file for writing: exclusive, no symlink following, mode 0600 whatever the umask. */
export function createExclusive(path: string): number {
  const fd = openSync(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

function writeAll(fd: number, buf: Uint8Array, position?: number): void {
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off, position === undefined ? null : position + off);
    off += n;
  }
}

/** Writes one result atomically. Use write() for record bytes, then commit() or abort(). */
export class ResultWriter implements RecordSink {
  readonly tempPath: string;
  private fd: number;
  private mem: Buffer[] = [];
  private memBytes = 0;
  private stage = Buffer.allocUnsafe(STAGE);
  private stagePos = 0;
  private spilled = false;
  private fileBytes = 0; // bytes in the file after the slot
  private readonly memoryLimit: number;
  private readonly slot: number;
  private done = false;
  private unsynced = 0;
  private syncing: Promise<void> | null = null;
  private syncError: Error | null = null;
  private readonly hasher = new LeafHasher();

  constructor(private readonly opts: WriterOptions) {
    this.memoryLimit = opts.memoryLimit ?? DEFAULT_MEMORY;
    this.slot = opts.headerSlot ?? DEFAULT_SLOT;
    this.tempPath = join(opts.ioDir ?? opts.dir, tempFileName(opts.id));
    this.fd = createExclusive(this.tempPath);
  }

  /** Record bytes written so far. */
  get size(): number {
    return this.memBytes + this.fileBytes + this.stagePos;
  }

  write(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n === 0) return;
    this.hasher.update(bytes);
    if (n >= STAGE >> 1) {
      this.flushStage();
      if (this.spilled) this.toFile(bytes); // written at once: no copy needed
      else this.put(Buffer.from(bytes)); // kept: a copy, as the caller may reuse its buffer
      return;
    }
    if (this.stagePos + n > STAGE) this.flushStage();
    this.stage.set(bytes, this.stagePos);
    this.stagePos += n;
  }

  private flushStage(): void {
    if (this.stagePos === 0) return;
    const full = this.stage.subarray(0, this.stagePos);
    this.stagePos = 0;
    if (this.spilled) {
      // written at once, so the stage can be reused
      this.toFile(full);
      return;
    }
    this.stage = Buffer.allocUnsafe(STAGE);
    this.put(full);
  }

  /** Keeps bytes in memory, or writes them to the file once past the memory limit. Takes ownership of buf. */
  private put(buf: Buffer): void {
    if (!this.spilled) {
      if (this.memBytes + buf.length <= this.memoryLimit) {
        this.mem.push(buf);
        this.memBytes += buf.length;
        return;
      }
      this.spill();
    }
    this.toFile(buf);
  }

  private toFile(buf: Uint8Array): void {
    writeAll(this.fd, buf);
    this.fileBytes += buf.length;
    this.unsynced += buf.length;
    if (this.unsynced >= SYNC_EVERY && !this.syncing) this.backgroundSync();
  }

  /** Starts an fdatasync in the thread pool; one at a time. */
  private backgroundSync(): void {
    this.unsynced = 0;
    this.syncing = new Promise((resolve) =>
      fdatasync(this.fd, (err) => {
        if (err && !this.syncError) this.syncError = err;
        this.syncing = null;
        resolve();
      }),
    );
  }

  /** The record bytes written so far, in order (to replay them after a change of content type). */
  *readBack(): Generator<Buffer> {
    this.flushStage();
    if (!this.spilled) {
      yield* this.mem;
      return;
    }
    const fd = openSync(this.tempPath, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    try {
      for (let pos = 0; pos < this.fileBytes; ) {
        const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, this.fileBytes - pos));
        const n = readSync(fd, buf, 0, buf.length, this.slot + pos);
        if (n <= 0) break;
        pos += n;
        yield buf.subarray(0, n);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Whether commit() writes this header in place (within the slot, or before records still in memory), not by a copy. */
  fitsInPlace(headerJson: string): boolean {
    return !this.spilled || Buffer.byteLength(headerJson, 'utf8') + 1 + BLOCKS_ROOM + MAC_ROOM <= this.slot;
  }

  /**
   * Line 1 as written: the header with its records' block hashes, in blocks small enough for their hashes to fit
   * what the slot leaves (any size for a result still in memory), and sealed; a header that leaves no room gets
   * them at the finest size, and is then written by a copy.
   */
  private finalHeader(headerJson: string): Buffer {
    const key = this.opts.macKey;
    const json = key ? withMember(headerJson, 'mac', MAC_VALUE_PLACEHOLDER) : headerJson; // just before `blocks`
    const name = ',"blocks":';
    const room = this.spilled ? this.slot - 1 - Buffer.byteLength(json, 'utf8') - name.length : Infinity;
    const member = blocksMember(this.hasher, room) ?? blocksMember(this.hasher, Infinity)!;
    const sealed = sealHeader(withMember(json, 'blocks', member));
    return Buffer.from(key ? signLine(key, sealed) : sealed, 'utf8');
  }

  /** Writes the header line, makes the file durable and gives it its final name. Returns the final path. */
  async commit(headerJson: string): Promise<string> {
    if (this.done) throw new Error('result already committed or aborted');
    if (this.syncing) await this.syncing;
    if (this.syncError) throw this.syncError;
    if (headerJson.includes('\n')) throw new Error('header must be one line');
    this.flushStage();
    const header = this.finalHeader(headerJson);
    if (!this.spilled) {
      writeAll(this.fd, Buffer.concat([header, NEWLINE, ...this.mem]));
      this.mem = [];
    } else if (header.length + 1 <= this.slot) {
      const line = Buffer.alloc(this.slot, 0x20);
      header.copy(line, 0);
      line[this.slot - 1] = 0x0a;
      writeAll(this.fd, line, 0);
    } else {
      this.rewriteWithHeader(header);
    }
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = -1;
    this.checkDir();
    const name = resultFileName(this.opts.operation, this.opts.id);
    // The file's data is durable before it gets its name; the directory itself is not fsynced (about 7 ms per
    // offload here): after an OS crash a result may be missing, never partial.
    renameSync(this.tempPath, join(this.opts.ioDir ?? this.opts.dir, name));
    this.done = true;
    return join(this.opts.dir, name);
  }

  /** Removes the temporary file; safe to call at any time, never throws. */
  abort(): void {
    if (this.done) return;
    this.done = true;
    try {
      unlinkSync(this.tempPath);
    } catch {
      // already gone
    }
    const fd = this.fd;
    this.fd = -1;
    // the fd stays open until a background sync on it has finished
    if (fd >= 0) {
      if (this.syncing) void this.syncing.then(() => close(fd, () => undefined));
      else {
        try {
          closeSync(fd);
        } catch {
          // ignore
        }
      }
    }
    this.mem = [];
  }

  private spill(): void {
    writeAll(this.fd, Buffer.alloc(this.slot, 0x20));
    for (const b of this.mem) writeAll(this.fd, b);
    this.fileBytes = this.memBytes;
    this.mem = [];
    this.memBytes = 0;
    this.spilled = true;
  }

  /** The header outgrew its slot: copy the records after the real header into a new temporary file. */
  private rewriteWithHeader(header: Buffer): void {
    const newPath = join(this.opts.ioDir ?? this.opts.dir, tempFileName(this.opts.id, 'rewrite'));
    const out = createExclusive(newPath);
    try {
      writeAll(out, Buffer.concat([header, NEWLINE]));
      for (const chunk of this.readBack()) writeAll(out, chunk);
    } catch (e) {
      closeSync(out);
      unlinkSync(newPath);
      throw e;
    }
    closeSync(this.fd);
    unlinkSync(this.tempPath);
    this.fd = out;
    (this as { tempPath: string }).tempPath = newPath;
  }

  private checkDir(): void {
    const id = this.opts.dirIdentity;
    if (!id) return;
    const st = lstatSync(this.opts.dir);
    if (st.isSymbolicLink() || !st.isDirectory() || st.dev !== id.dev || st.ino !== id.ino) {
      throw new Error(`the store ${this.opts.dir} was replaced while writing`);
    }
  }
}

const NEWLINE = Buffer.from('\n');
/** The MAC's member in line 1 (`,"mac":"…"`), when a key is set. */
const MAC_ROOM = 52;

