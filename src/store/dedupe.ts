// Same output, same answer: an output identical to a result already in the same folder of the store (same bytes
// as stored, same options, not expired) gets that result's id back instead of a new file, so a re-run command
// gets a byte-identical descriptor (which keeps a model provider's prompt cache warm).
//
// Finding it costs one small read, not a scan of the store: `.lro-<key>.ref` names the result holding the output
// whose dedupe key (a hash of its sha256 and its options) is <key>. Two identical offloads finishing together
// must end with one file and one id, without a lock server: the writer that has read all its input takes
// `.lro-<key>.claim` (created with O_EXCL, holding its pid), looks the ref up, then either drops its temporary
// file and answers with the existing result, or commits its own and points the ref at it, and lets the claim go.
// The other writer waits for the claim (a few milliseconds), then finds the first one's result. A claim whose
// writer died is stale: broken at once by the next writer (after checking the pid is gone), removed by gc after
// an hour like a temporary file. A claim is held only while a result is committed, so one older than
// CLAIM_STALE_MS is stale too, whatever its pid (which may now be another process's). A waiter that cannot get
// the claim from one holder in CLAIM_WAIT_MS stores its own result.
import { createHash } from 'node:crypto';
import { closeSync, constants as fsc, openSync, readSync, renameSync, unlinkSync, writeFileSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Header } from '../format/header.js';
import { claimFileName, parseResultFileName, refFileName, tempFileName } from '../format/naming.js';
import { checkLineMac } from '../format/mac.js';
import { openResultFile, readHeaderLine, type ResultFile } from '../format/reader.js';
import { removeUnchanged } from './gc.js';
import { lstatFacts } from './scan.js';
import { processMayBeAlive } from './writers.js';

/** How long a writer waits for another's claim on the same output before storing its own result. */
export const CLAIM_WAIT_MS = 10_000;
/** A result expiring within this long (or a tenth of its ttl, if less) is not handed out again. */
const MIN_LIFE_MS = 60_000;

/** The header fields that make two results the same answer: everything but the id, the times and the layout. */
export type DedupeFields = Pick<
  Header,
  'sha256' | 'bytes' | 'operation' | 'query' | 'session' | 'meta' | 'source' | 'ttl_seconds' | 'encoding' | 'detail' | 'redacted'
>;

function identity(h: DedupeFields, format: string): unknown[] {
  const meta = Object.entries(h.meta).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [h.sha256, h.bytes, h.operation, h.query, h.session, meta, h.source ?? null, h.ttl_seconds, h.encoding, h.detail, format, h.redacted !== undefined];
}

/** The dedupe key of a result about to be written with `format` (the --format option): 64 hex digits. */
export function dedupeKey(h: DedupeFields, format: string): string {
  return createHash('sha256').update(JSON.stringify(identity(h, format))).digest('hex');
}

/** Reads a small file without following a symlink; null when it is missing or not a small regular file. */
function readSmall(path: string): { text: string; mtimeMs: number } | null {
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 512) return null;
    const buf = Buffer.alloc(512);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { text: buf.toString('utf8', 0, n), mtimeMs: st.mtimeMs };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The result file name a ref holds; null when the ref is missing or does not hold one. */
export function readRef(path: string): string | null {
  const name = readSmall(path)?.text.trim();
  return name && parseResultFileName(name) ? name : null;
}

/** A held claim; release() lets it go (only if the file is still the one this writer made). */
export interface Claim {
  release(): void;
}

/** Takes the claim on `key` in the folder `ioDir`, waiting for another writer's; null if it cannot in time. */
export async function takeClaim(ioDir: string, key: string, waitMs = CLAIM_WAIT_MS): Promise<Claim | null> {
  const path = join(ioDir, claimFileName(key));
  // The wait is for one holder: each time the claim changes hands (a new file), the queue moved, and the wait
  // starts again. 100 identical offloads at once on a loaded machine passed the claim on for longer than 10 s in
  // all, and the last waiters stored results of their own (12 to 29 results where one was promised).
  let deadline = Date.now() + waitMs;
  let holder: number | null = null;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    let fd: number | null = null;
    try {
      fd = openSync(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
      writeFileSync(fd, `${process.pid}\n`);
      const st = fstatSync(fd);
      closeSync(fd);
      const mine = { dev: st.dev, ino: st.ino };
      return {
        release() {
          const now = lstatFacts(path);
          if (now && now.dev === mine.dev && now.ino === mine.ino) {
            try {
              unlinkSync(path);
            } catch {
              // gone already: nothing to release
            }
          }
        },
      };
    } catch (e) {
      if (fd !== null) {
        closeSync(fd);
        try {
          unlinkSync(path); // made but its pid not written (a full disk): leave no empty claim behind
        } catch {
          // gone already
        }
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return null; // cannot claim here: store without dedupe
    }
    const held = readSmall(path);
    if (held && !claimHolderMayBeAlive(path, held.mtimeMs)) {
      const facts = lstatFacts(path);
      if (facts?.isFile) removeUnchanged(facts); // its writer died while holding it
      continue;
    }
    const now = lstatFacts(path);
    if (now && now.ino !== holder) {
      holder = now.ino;
      deadline = Date.now() + waitMs;
    }
    if (Date.now() >= deadline) return null;
    await sleep(pause);
  }
}

/** A claim untouched this long is stale: committing a result under it takes seconds, a copy of a huge one minutes. */
export const CLAIM_STALE_MS = 10 * 60_000;
/**
 * A claim is created empty and its pid written just after (O_EXCL cannot do both at once): an empty claim this
 * young is being written by a live writer, not left by a dead one.
 */
export const CLAIM_WRITING_MS = 60_000;

/**
 * Whether the writer holding a claim (the pid written in it) may still be deciding; false when it is gone, or the
 * claim is older than CLAIM_STALE_MS. An empty claim is one whose pid is being written: alive for CLAIM_WRITING_MS.
 */
export function claimHolderMayBeAlive(path: string, mtimeMs: number, nowMs = Date.now()): boolean {
  if (nowMs - mtimeMs > CLAIM_STALE_MS) return false;
  const held = readSmall(path);
  if (held === null) return false;
  const pid = held.text.trim();
  if (pid === '') return nowMs - mtimeMs <= CLAIM_WRITING_MS;
  return processMayBeAlive(Number(pid), mtimeMs);
}

/** A result already holding this output: its file opened, and where it is. */
export interface Found {
  rf: ResultFile;
}

/**
 * The result the ref for `key` names in `dir` (read through `ioDir`), if it still holds the same output with
 * the same options and lives long enough to be handed out; null otherwise. With the store's secret (`mac`:
 * LRO_STORE_KEY), only a result whose line 1 carries its MAC: one stored without it (or with another key) would be
 * handed out and then refused by every reader that has the key.
 */
export function findStored(dir: string, ioDir: string, key: string, format: string, nowMs: number, mac: Buffer | null = null): Found | null {
  const name = readRef(join(ioDir, refFileName(key)));
  if (!name) return null;
  let rf: ResultFile;
  try {
    rf = openResultFile(join(dir, name));
  } catch {
    return null; // removed by gc, or damaged: store a new one
  }
  const h = rf.header;
  const life = Date.parse(h.expires_at) - nowMs;
  if (h.id !== parseResultFileName(name)!.id || dedupeKey(h, format) !== key) return null;
  if (life <= Math.min(MIN_LIFE_MS, (h.ttl_seconds * 1000) / 10)) return null;
  if (mac) {
    try {
      checkLineMac(mac, rf.line ?? readHeaderLine(rf.path).line);
    } catch {
      return null; // not signed with this key: store one that is
    }
  }
  return { rf };
}

/** Points the ref for `key` at the result file `name` (write a temporary file, then rename over the ref). */
export function writeRef(ioDir: string, key: string, id: string, name: string): void {
  const tmp = join(ioDir, tempFileName(id, 'ref'));
  try {
    writeFileSync(tmp, `${name}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(ioDir, refFileName(key)));
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // never created
    }
    // a ref is only a shortcut: without it the next identical output is stored again
  }
}
