// Every harness lro knows, in the order `lro doctor` lists them. A new harness is a folder of its own under
// harness/ whose index.ts makes its Harness (harness.ts), and one line here.
import { claudeCode } from './claude-code/index.js';
import { codex } from './codex/index.js';
import { gemini } from './gemini/index.js';
import type { Harness } from './harness.js';
import { mcpConfigHarnesses } from './mcp-config/index.js';

export const HARNESS_LIST: Harness[] = [claudeCode, codex, gemini, ...mcpConfigHarnesses];

/** The harness of that name, or undefined. */
export const harnessNamed = (name: string): Harness | undefined => HARNESS_LIST.find((h) => h.name === name);
