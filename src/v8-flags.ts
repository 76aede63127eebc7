// V8 flags lro sets while it runs, once its bundles are loaded (V8 takes a code cache only under the flags it was
// made with: bin/code-cache.js). A flag holds for the whole process from then on, so one that tunes V8 for a
// single command's work (how soon to optimise, which compiler for jq) is set only by a command in a process of
// its own (the CLI: io.ownProcess), never by one the MCP server runs for a tool call.
import { createRequire } from 'node:module';

let changed = false;

/** node:v8's setFlagsFromString, loaded when first needed (loading node:v8 costs a command about 4 ms). */
export function setV8Flags(flags: string): void {
  (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(flags);
  changed = true;
}

/**
 * Whether lro has set a flag in this process: a code cache loaded from then on (a worker's: store/s3-sync.ts) is
 * refused by V8, after reading it for nothing.
 */
export function v8FlagsChanged(): boolean {
  return changed;
}

/**
 * V8 optimises a function for its hot loop on a background thread, and a process waits for that to finish
 * before it exits: for grep's record loop, 25 to 45 ms of compiling, begun a few milliseconds into a search of a
 * megabyte and ready only after it ended. With a budget 15 times V8's, a search of a few megabytes is done
 * before V8 asks; a larger one is optimised a little later.
 */
export function optimiseLater(): void {
  setV8Flags('--interrupt-budget=1000000');
}
