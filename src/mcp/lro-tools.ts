// lro's tools as one object the server and the proxy share: the listing, and a call that runs the tool's command
// in-process (its declaration's `run`, with typed arguments and an IO that keeps the output) and returns its
// result. A bad call is an error result; nothing a call does can stop the server.
import { runReported } from '../commands/failure.js';
import { LroError, oneLine } from '../errors.js';
import { checkArguments, toInput } from './arguments.js';
import { CallReader } from './calls.js';
import { captureIO } from './capture-io.js';
import { loadToolDefs, type ListedTool, type ToolDef } from './definitions.js';
import { errorResult, toolResult, type ToolResult } from './result.js';
import type { ToolSpec } from './tools.js';

/** lro's tools, ready to list and call. */
export class LroTools {
  private readonly defs: Map<string, ToolDef>;
  /** Reads commands back as calls of these tools. */
  readonly calls: CallReader;

  private constructor(
    defs: ToolDef[],
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.defs = new Map(defs.map((d) => [d.spec.name, d]));
    this.calls = new CallReader(defs);
  }

  /** Loads the tools (those `keep` accepts) to run with `env` (LRO_DIR names the store). */
  static async load(env: NodeJS.ProcessEnv, keep?: (t: ToolSpec) => boolean): Promise<LroTools> {
    return new LroTools(await loadToolDefs(keep), env);
  }

  /** The tools as tools/list shows them. */
  list(): ListedTool[] {
    return [...this.defs.values()].map((d) => d.listed);
  }

  /** Whether a tool name is one of these. */
  has(name: string): boolean {
    return this.defs.has(name);
  }

  /** Runs a tool; never throws. */
  async call(name: string, args: unknown): Promise<ToolResult> {
    try {
      const def = this.defs.get(name);
      if (!def) throw new LroError(`unknown tool ${name}: the tools are ${[...this.defs.keys()].join(', ')}`);
      const checked = checkArguments(def, args);
      const input = def.spec.stdin ? (checked[def.spec.stdin] as string) : '';
      const { io, stdout, stderr } = captureIO(this.env, input);
      const code = await runReported(def.command, toInput(def, checked), io);
      return await toolResult(def.spec, { stdout: stdout(), stderr: stderr(), code }, this.calls);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return errorResult(`lro: ${oneLine(message)}`);
    }
  }
}
