// The real-world corpus (logs, JSON documents, the JSONTestSuite) vendored in fixtures/corpus; see its MANIFEST.md.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The corpus directory ($LRO_CORPUS overrides it). */
export function corpusDir(): string {
  const dir = process.env.LRO_CORPUS ?? resolve(__dirname, '../../fixtures/corpus');
  if (!existsSync(dir)) throw new Error(`corpus not found at ${dir}`);
  return dir;
}

/** A file of the corpus by its path inside it, e.g. corpusFile('loghub/HDFS_2k.log'). */
export function corpusFile(rel: string): string {
  return join(corpusDir(), rel);
}

/** Every data file of the corpus (recursively), licenses and manifests excluded, sorted. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!/^(LICENSE|MANIFEST|README)/.test(name)) out.push(p);
    }
  };
  walk(corpusDir());
  return out;
}
