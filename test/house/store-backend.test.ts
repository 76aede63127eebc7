// A store's backend stays behind the one type of store/store.ts: outside store/, no module imports the S3 backend's
// files or asks which backend a path is in, so a new backend is made in store/ alone (ARCHITECTURE.md, "A store
// backend"). The word "remote" elsewhere (a remote MCP server, harness/mcp-config/) is not this.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sources, SRC } from './graph.js';

/** The files of store/ that are a backend's own, or that tell the backends apart by a path. */
const BACKEND_FILE = /^store\/(remote\.ts|remote-index\.ts|s3-[^/]+\.ts|list-ahead\.ts|location\.ts)$/;

/**
 * Where a module outside store/ reaches past the Store type: an import of a backend's file, or a call of
 * `remoteOf(` (which backend holds a path). `files` maps a module (relative to src/) to its imports and its text.
 */
export function backendLeaks(files: Map<string, { imports: string[]; text: string }>): string[] {
  const found: string[] = [];
  for (const [file, { imports, text }] of files) {
    if (file.startsWith('store/')) continue;
    for (const to of imports) if (BACKEND_FILE.test(to)) found.push(`${file} -> ${to}`);
    if (/\bremoteOf\(/.test(text)) found.push(`${file}: remoteOf(`);
  }
  return found.sort();
}

describe('the store backends behind store/store.ts', () => {
  it('finds an import of a backend and a remoteOf call outside store/ (the checker works)', () => {
    const files = new Map([
      ['commands/ls.ts', { imports: ['store/remote.ts', 'store/open.ts'], text: '' }],
      ['commands/gc.ts', { imports: ['store/s3-store.ts', 'store/list-ahead.ts'], text: '' }],
      ['api/x.ts', { imports: ['store/location.ts'], text: 'const r = remoteOf(dir)?.store;' }],
      ['offload-store.ts', { imports: ['store/store.ts', 'store/remote-index.ts'], text: '// store/remote.ts uploads it' }],
      ['store/open.ts', { imports: ['store/s3-store.ts', 'store/location.ts'], text: 'remoteOf(dir)' }],
      ['harness/mcp-config/settings.ts', { imports: ['harness/check.ts'], text: 'a remote MCP server' }],
    ]);
    expect(backendLeaks(files)).toEqual([
      'api/x.ts -> store/location.ts',
      'api/x.ts: remoteOf(',
      'commands/gc.ts -> store/list-ahead.ts',
      'commands/gc.ts -> store/s3-store.ts',
      'commands/ls.ts -> store/remote.ts',
      'offload-store.ts -> store/remote-index.ts',
    ]);
  });

  it('has no module outside store/ that imports a backend or calls remoteOf', () => {
    const files = new Map(
      sources(SRC).map((f) => {
        const text = readFileSync(f, 'utf8');
        return [relative(SRC, f), { imports: importsOf(f, text), text }] as const;
      }),
    );
    expect(files.has('store/s3-store.ts') && files.has('commands/ls.ts')).toBe(true);
    expect(backendLeaks(files)).toEqual([]);
  });
});
