// Sessions: `--session S` (or $LRO_SESSION) puts results in `<store>/sessions/<S>/`, so a whole session can be
// listed and removed at once. A session name becomes one directory name, so it is checked first: nothing that
// could leave `sessions/` or confuse a terminal gets through. A `/` is what an agent writes first
// (`feature/login`), so it is accepted and written `%2F` in the folder's name (and `%` as `%25`): one folder per
// session, never a nested one, and the name is read back exactly from the folder.
import { join } from 'node:path';
import { UsageError } from '../errors.js';

/** The folder of the store that holds one folder per session. */
export const SESSIONS_DIR = 'sessions';
/** Longest session name, in UTF-8 bytes (a file name may have 255). */
export const MAX_SESSION_BYTES = 128;
/** Longest folder name a file system takes. */
const MAX_FOLDER_BYTES = 255;

/** The name of a session's folder: `/` written `%2F`, `%` written `%25`, nothing else changed. */
export function sessionFolderName(session: string): string {
  return session.replace(/[%/]/g, (c) => (c === '%' ? '%25' : '%2F'));
}

/**
 * The session a folder is for: sessionFolderName undone. A `%` not followed by 25 or 2F stays as it is, so a
 * folder an older lro made for a session with a `%` still reads as that session.
 */
export function sessionOfFolder(folder: string): string {
  return folder.replace(/%(25|2F)/g, (_, hex: string) => (hex === '25' ? '%' : '/'));
}

/** Why a session name is refused, or null when it is fine. */
export function sessionProblem(name: string): string | null {
  if (name.length === 0) return 'it is empty';
  if (Buffer.byteLength(name, 'utf8') > MAX_SESSION_BYTES) return `it is longer than ${MAX_SESSION_BYTES} bytes`;
  if (Buffer.byteLength(sessionFolderName(name), 'utf8') > MAX_FOLDER_BYTES) {
    return `its folder name (/ written %2F) is longer than ${MAX_FOLDER_BYTES} bytes`;
  }
  if (name.includes('\\')) return "it contains '\\'";
  if (name === '.' || name.includes('..')) return "it is '.' or contains '..'";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'it contains a control character';
  if (/[\ud800-\udfff]/.test(name.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return 'it is not valid Unicode';
  return null;
}

/** Checks a session name (from `--session` or $LRO_SESSION); throws a usage error saying what is wrong. */
export function checkSession(name: string, from: string): string {
  const problem = sessionProblem(name);
  if (problem) {
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    throw new UsageError(`invalid ${from} ${shown}: ${problem}: name it with at most ${MAX_SESSION_BYTES} bytes and no '\\', '..' or control characters`);
  }
  return name;
}

/** Where a session's results live in the store at `root`; the store root itself without a session. */
export function sessionDir(root: string, session: string | null): string {
  return session === null ? root : join(root, SESSIONS_DIR, sessionFolderName(session));
}
