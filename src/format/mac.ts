// Keyed integrity: a result's MAC (HMAC-SHA256 under the store's secret, LRO_STORE_KEY) in line 1's `mac` member.
// Block hashes and line 1's seal (blocks.ts) tell a changed object from a stored one only against someone who
// cannot rewrite them too; with write access to the bucket one can rewrite records, hashes, seal and sha256 alike.
// The MAC anchors them to the key: it covers line 1 as listed (the header without its block hashes and statistics,
// what the store's index keeps of it: the sha256 is there) and line 1's seal (which covers the rest of line 1, the
// block hashes among them), so a reader holding the key checks a whole fetch, a ranged read and an index entry alike.
//
// The member sits before `blocks` (so a listing's cut keeps it) and has a fixed length: the writer puts a
// placeholder, seals the line (the seal hashes the placeholder in the MAC's place), then fills it in. The key is
// never written anywhere, nor named in a message by its value.
import { createRequire } from 'node:module';
import { BlockMismatch, MAC_CHARS, MAC_PLACEHOLDER, macValueAt } from './blocks.js';

/** The environment variable holding the store's secret. */
export const KEY_VARIABLE = 'LRO_STORE_KEY';
const BLOCKS_MEMBER = ',"blocks":{"size":';
const SEAL_MARK = '"head":"';
const SEAL_CHARS = 16;

type Crypto = typeof import('node:crypto');
const crypto = (): Crypto => createRequire(import.meta.url)('node:crypto') as Crypto;

/** The store's secret from the environment, or null when none is set (an empty value is none). */
export function storeKey(env: NodeJS.ProcessEnv): Buffer | null {
  const v = env[KEY_VARIABLE];
  return v ? Buffer.from(v, 'utf8') : null;
}

/** Line 1 as listed with the MAC's value as its placeholder. */
function unsigned(listed: Buffer, at: number): Buffer {
  const out = Buffer.from(listed);
  out.write(MAC_PLACEHOLDER, at, 'latin1');
  return out;
}

function macOf(key: Buffer, listedUnsigned: Buffer, seal: string): string {
  const h = crypto().createHmac('sha256', key);
  h.update('lro-mac/1\n');
  h.update(listedUnsigned);
  h.update(`\n${seal}`);
  return h.digest('base64').replace(/=+$/, '');
}

/** Line 1 cut before its block hashes and closed, as a listing and the index keep it; null when it has none. */
function listedPart(line: Buffer): Buffer | null {
  const at = line.lastIndexOf(BLOCKS_MEMBER);
  return at < 0 ? null : Buffer.concat([line.subarray(0, at), Buffer.from('}')]);
}

/** The seal in a line's `blocks` member (the last `"head":"` of the member), or null. */
function sealIn(line: Buffer): string | null {
  const b = line.lastIndexOf(BLOCKS_MEMBER);
  if (b < 0) return null;
  const at = line.indexOf(SEAL_MARK, b);
  return at < 0 ? null : line.subarray(at + SEAL_MARK.length, at + SEAL_MARK.length + SEAL_CHARS).toString('latin1');
}

/** The member the writer puts in line 1 before sealing it, as withMember takes it (JSON text of the value). */
export const MAC_VALUE_PLACEHOLDER = JSON.stringify(MAC_PLACEHOLDER);

/** A sealed line 1 (with the placeholder of the MAC) with its MAC filled in. */
export function signLine(key: Buffer, sealed: string): string {
  const line = Buffer.from(sealed, 'utf8');
  const listed = listedPart(line);
  const seal = sealIn(line);
  const at = macValueAt(line, line.lastIndexOf(BLOCKS_MEMBER));
  if (!listed || !seal || at < 0) throw new Error('a header to sign has no block hashes or no MAC placeholder');
  const mac = macOf(key, unsigned(listed, at), seal);
  line.write(mac, at, 'latin1'); // bytes, not characters: the header may hold any text before it
  return line.toString('utf8');
}

/**
 * What a reader holding the key is told of a result without a MAC: it was written without the key (by an lro
 * without one, or before keys), and it can still be read unchecked.
 */
export const UNSIGNED = `has no MAC: it was stored without ${KEY_VARIABLE}, so its integrity cannot be checked (unset ${KEY_VARIABLE} to read it unchecked)`;
const WRONG = `has a MAC that does not match ${KEY_VARIABLE} (changed on the server after it was stored, or stored with another key)`;

/**
 * Checks a listed line 1 (the header without block hashes, as the index keeps it) and a seal against the MAC in it.
 * Throws BlockMismatch saying what is wrong.
 */
export function checkListedMac(key: Buffer, listed: Buffer, seal: string | null | undefined): void {
  const at = macValueAt(listed, listed.length - 1);
  if (at < 0 || !seal) throw new BlockMismatch(UNSIGNED);
  const given = listed.subarray(at, at + MAC_CHARS).toString('latin1');
  const want = macOf(key, unsigned(listed, at), seal);
  if (given.length !== MAC_CHARS || !crypto().timingSafeEqual(Buffer.from(given), Buffer.from(want))) throw new BlockMismatch(WRONG);
}

/**
 * Checks a whole line 1 against its MAC (its seal is checked apart: checkHeaderSeal). Throws BlockMismatch saying
 * what is wrong.
 */
export function checkLineMac(key: Buffer, line: Buffer): void {
  const listed = listedPart(line);
  if (!listed) throw new BlockMismatch(UNSIGNED);
  checkListedMac(key, listed, sealIn(line));
}

/** The seal of a whole line 1, for an index entry (checked with its listed line: checkListedMac). */
export function lineSeal(line: Buffer): string | null {
  return sealIn(line);
}
