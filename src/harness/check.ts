// One finding of `lro doctor` about a harness: what the harness adapters report and the doctor prints; and what
// several harnesses' checks share (the files a hook command names, the fix for lro missing from PATH, a settings
// folder as the sign a harness is used here).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { binDir } from './lro-bin.js';

/** One finding of `lro doctor`. */
export interface Check {
  name: string;
  ok: boolean;
  /** A finding that does not make lro unhealthy (the harness not on this PATH, an untested version). */
  warning?: boolean;
  detail: string;
  fix?: string;
  /** lro is not installed in this harness (so `lro doctor` with no harness named does not count it as broken). */
  absent?: boolean;
}

/**
 * The files a hook command lro installed names, as a shell reads its first two words: `LRO_NODE='NODE'
 * 'BIN/lro-hook' VERB` (bin/lro-hook, this lro) or, as an older lro wrote it, `'NODE' 'BIN/lro.js' VERB`.
 */
export function hookPaths(command: string): string[] {
  const words = [...command.matchAll(/(?:LRO_NODE=)?(?:'((?:[^']|'\\'')*)'|(\S+))/g)].slice(0, 2);
  return words.map((m) => (m[1] ?? m[2]).replace(/'\\''/g, "'"));
}

/**
 * How to put this lro on PATH (lro is not published to npm: `npm install -g lro` would fetch another package or
 * nothing): a link to this installation's bin/lro.js, or npm installing this folder.
 */
export function lroOnPathFix(where = 'a folder on PATH'): string {
  const bin = binDir();
  return `ln -s ${join(bin, 'lro.js')} ~/.local/bin/lro (or another folder in ${where}), or npm install -g ${dirname(bin)}`;
}

/** A settings folder under HOME, when it exists: `~/.codex`-like evidence that a harness is used here. */
export function homeFolder(env: NodeJS.ProcessEnv, ...parts: string[]): string | null {
  const home = env.HOME || homedir();
  const path = [home, ...parts].join('/');
  return existsSync(path) ? `~/${parts.join('/')}` : null;
}
