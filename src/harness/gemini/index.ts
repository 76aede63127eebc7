// Gemini CLI: an AfterTool hook on the shell tool and MCP tools (hook.ts, its input read as it streams: input.ts;
// run by bin/lro-hook), in settings.json (settings.ts, init.ts); its doctor (doctor.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { homeFolder } from '../check.js';
import type { Harness } from '../harness.js';
import { onPath } from '../portable.js';
import { geminiChecks } from './doctor.js';
import { geminiAdapter } from './init.js';

export const gemini: Harness = {
  name: 'gemini',
  label: 'Gemini CLI',
  command: 'gemini',
  found: (env) =>
    (onPath('gemini', env) ? 'gemini on PATH' : null) ??
    (env.GEMINI_CLI_HOME && existsSync(join(env.GEMINI_CLI_HOME, '.gemini')) ? env.GEMINI_CLI_HOME : null) ??
    homeFolder(env, '.gemini'),
  checks: geminiChecks,
  adapter: geminiAdapter,
};
