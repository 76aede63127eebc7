// The bearer token every HTTP request must carry: read from --token-file, or made up at start and printed once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** A token shorter than this is refused: guessable by a client that may try as often as it likes. */
export const MIN_TOKEN_CHARS = 32;

/** The token in a file (surrounding whitespace ignored); a missing, empty or short one is a usage error. */
export function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --token-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) throw new UsageError(`--token-file ${file} must hold one token (no spaces): e.g. openssl rand -hex 32 > ${file}`);
  if (token.length < MIN_TOKEN_CHARS) {
    const short = `--token-file ${file} holds a token of ${token.length} characters, fewer than ${MIN_TOKEN_CHARS}`;
    throw new UsageError(`${short}: make a longer one, e.g. openssl rand -hex 32 > ${file}`);
  }
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
