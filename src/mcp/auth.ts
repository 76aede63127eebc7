// The bearer token every HTTP request must carry: read from --token-file, or made up at start and printed once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** The token in a file (surrounding whitespace ignored); a missing or empty file is a usage error. */
export function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --token-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) throw new UsageError(`--token-file ${file} must hold one token (no spaces): e.g. openssl rand -hex 32 > ${file}`);
  return token;
}

/** A new random token (256 bits, URL-safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether an Authorization header carries the token. Compared in constant time (digests of equal length), so
 * the time taken says nothing about how much of a guess was right.
 */
export function authorized(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  const given = m ? m[1] : '';
  return timingSafeEqual(digest(given), digest(token)) && m !== null;
}
