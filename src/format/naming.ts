// File names in the store: `lro-<operation>-<ULID>.jsonl` for results, `.lro-<ULID>-<pid>.tmp` while writing,
// and for deduplication `.lro-<key>.ref` (which result holds an output) and `.lro-<key>.claim` (a writer deciding
// it), where the key is 64 hex digits (see store/dedupe.ts). Every other name in the store is foreign to lro and
// is never touched.

/** Crockford base32 ULID: 26 characters, the first one at most 7 (48-bit time). */
export const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const RESULT_RE = /^lro-([a-z0-9_-]{1,40})-([0-7][0-9A-HJKMNP-TV-Z]{25})\.jsonl$/;
/** `.lro-<ULID>-<purpose>-<pid>-<n>.tmp`, exactly as tempFileName writes it: nothing looser is lro's to remove. */
const TEMP_RE = /^\.lro-([0-7][0-9A-HJKMNP-TV-Z]{25})-[a-z]+-(\d{1,10})-\d+\.tmp$/;

/** Whether s is a well-formed ULID (the id of a result). */
export function isUlid(s: string): boolean {
  return ULID_RE.test(s);
}

/** Reduces any operation name to `[a-z0-9_-]{1,40}` so it is safe in a file name; empty becomes "offload". */
export function sanitizeOperation(operation: string): string {
  const cleaned = operation
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return cleaned || 'offload';
}

/** The file name of a stored result. */
export function resultFileName(operation: string, id: string): string {
  return `lro-${sanitizeOperation(operation)}-${id}.jsonl`;
}

/** Parses a result file name; null when the name is not one lro writes. */
export function parseResultFileName(name: string): { operation: string; id: string } | null {
  const m = RESULT_RE.exec(name);
  return m ? { operation: m[1], id: m[2] } : null;
}

let tempSerial = 0;

/** A temporary name, unique in this process, for a result (or its spool) before the atomic rename. */
export function tempFileName(id: string, purpose = 'write'): string {
  return `.lro-${id}-${purpose}-${process.pid}-${tempSerial++}.tmp`;
}

/** Whether a name is one of lro's temporary files (as tempFileName makes them). */
export function isTempFileName(name: string): boolean {
  return TEMP_RE.test(name);
}

/** The id and the writer's pid in a temporary file name; null when the name is not one lro writes. */
export function parseTempFileName(name: string): { id: string; pid: number } | null {
  const m = TEMP_RE.exec(name);
  return m ? { id: m[1], pid: Number(m[2]) } : null;
}

const DEDUPE_RE = /^\.lro-([0-9a-f]{64})\.(ref|claim)$/;

/** The name of the file saying which result holds the output with this dedupe key. */
export function refFileName(key: string): string {
  return `.lro-${key}.ref`;
}

/** The name of the file a writer holds while it decides whether the output with this key is stored already. */
export function claimFileName(key: string): string {
  return `.lro-${key}.claim`;
}

/** The kind and key of a dedupe file name; null when the name is not one lro writes. */
export function parseDedupeFileName(name: string): { kind: 'ref' | 'claim'; key: string } | null {
  const m = DEDUPE_RE.exec(name);
  return m ? { kind: m[2] as 'ref' | 'claim', key: m[1] } : null;
}
