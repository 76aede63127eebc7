// lro's tools as one object the server and the proxy share: the listing, and a call that runs the tool's command
// in-process (its declaration's `run`, with typed arguments and an IO that keeps the output) and returns its
// result. A bad call is an error result; nothing a call does can stop the server. A client reads only the store
// (confine.ts), and no result is larger than one message may safely be (bounds.ts).
import type { Input } from '../commands/command.js';
import { runReported } from '../commands/failure.js';
import { LroError, oneLine } from '../errors.js';
import { checkArguments, storeWide, toInput } from './arguments.js';
import { capEchoes, cappedBudget, MAX_OUTPUT_BYTES, MAX_RESULT_BYTES, resultBytes, smallerInput, tooLargeMessage } from './bounds.js';
import { CallReader } from './calls.js';
import { captureIO } from './capture-io.js';
import { Confinement } from './confine.js';
import { storePath } from '../store/dir.js';
import { loadToolDefs, type ListedTool, type ToolDef } from './definitions.js';
import { errorResult, toolResult, type ToolResult } from './result.js';
import type { ToolSpec } from './tools.js';

/** lro's tools, ready to list and call. */
export class LroTools {
  private readonly defs: Map<string, ToolDef>;
  /** Reads commands back as calls of these tools. */
  readonly calls: CallReader;

  private readonly confinement: Confinement;

  private constructor(
    defs: ToolDef[],
    private readonly env: NodeJS.ProcessEnv,
    allowDirs: string[],
  ) {
    this.defs = new Map(defs.map((d) => [d.spec.name, d]));
    this.calls = new CallReader(defs);
    this.confinement = new Confinement(env, allowDirs);
  }

  /**
   * Loads the tools (those `keep` accepts) to run with `env` (LRO_DIR names the store); result files outside the
   * store are read only under `allowDirs`.
   */
  static async load(env: NodeJS.ProcessEnv, keep?: (t: ToolSpec) => boolean, allowDirs: string[] = []): Promise<LroTools> {
    return new LroTools(await loadToolDefs(keep), env, allowDirs);
  }

  /** The tools as tools/list shows them. */
  list(): ListedTool[] {
    return [...this.defs.values()].map((d) => d.listed);
  }

  /** Whether a tool name is one of these. */
  has(name: string): boolean {
    return this.defs.has(name);
  }

  /** Runs a tool; never throws. An error never repeats a long argument whole. */
  async call(name: string, args: unknown): Promise<ToolResult> {
    try {
      const def = this.defs.get(name);
      if (!def) throw new LroError(`unknown tool ${name}: the tools are ${[...this.defs.keys()].join(', ')}`);
      const checked = checkArguments(def, args);
      // every argument naming a result (grep's id, diff's a and b): an id, or a path inside the store
      const results = storeWide(def, checked) ? [] : def.positionals.filter((p) => p.result);
      for (const p of results) {
        const value = checked[p.key] ?? checked[p.name];
        for (const ref of Array.isArray(value) ? value : [value]) if (typeof ref === 'string') this.confinement.check(ref);
      }
      return await this.bounded(def, checked);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return errorResult(`lro: ${capEchoes(this.hideStore(oneLine(message)), [name, args])}`);
    }
  }

  /** An error's text without the store's absolute path (a client needs ids, not where this machine keeps them). */
  private hideStore(text: string): string {
    const store = storePath(undefined, this.env);
    return store.length > 1 ? text.split(store).join('the store') : text;
  }

  /** Runs the tool's command within the bounds of one result: made again with less when it came out too large. */
  private async bounded(def: ToolDef, args: Record<string, unknown>): Promise<ToolResult> {
    let input = cappedBudget(def, toInput(def, args), this.env);
    for (let tries = 1; ; tries++) {
      const result = await this.run(def, input, args);
      const bytes = resultBytes(result);
      if (bytes <= MAX_RESULT_BYTES) return result;
      const smaller = tries < 4 ? smallerInput(def, input, bytes, this.env) : null;
      if (!smaller) throw new LroError(tooLargeMessage(def, bytes));
      input = smaller;
    }
  }

  /** One run of the command, its output kept, with the last line lro added to it and the values it gave handed over as data. */
  private async run(def: ToolDef, input: Input, args: Record<string, unknown>): Promise<ToolResult> {
    const { io, stdout, stderr } = captureIO(this.env, def.spec.stdin ? (args[def.spec.stdin] as string) : '', MAX_OUTPUT_BYTES);
    const code = await runReported(def.command, input, io);
    const { lines, values } = io.run;
    // stderr as the client gets it (the store's path hidden, long arguments shortened), its notes made the same way
    const shown = (text: string) => capEchoes(this.hideStore(text), args);
    const out = {
      stdout: stdout(),
      stderr: shown(stderr()),
      code,
      last: lines.filter((l) => !l.stderr).at(-1),
      notes: lines.filter((l) => l.stderr).map((l) => ({ ...l, what: shown(l.what), line: shown(l.line), mentions: l.mentions.map((m) => ({ ...m, text: shown(m.text) })) })),
      values,
    };
    return toolResult(def.spec, out, this.calls, args);
  }
}
