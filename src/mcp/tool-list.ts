// The upstream's tools/list as the proxy's client sees it: lro's tools added on the last page; an upstream tool
// with the name of one of lro's is left out (lro's tools must work: the descriptors name them), with a warning;
// and each outputSchema of a tool whose results may be offloaded also allows the `{lro_offloaded: {...}}` that
// replaces structuredContent too large to keep (offload-result.ts), so a client that validates still accepts it.
import type { ListedTool } from './definitions.js';

type Schema = Record<string, unknown>;
type UpstreamTool = { name: string; outputSchema?: Schema; [k: string]: unknown };

/**
 * The structuredContent that stands for stored data, as short as a validator needs: every wrapped tool of every
 * session pays for these words (the full shape, with id, tool and note typed, cost 63 tokens a tool; this, 17).
 */
export const OFFLOADED_SCHEMA: Schema = { required: ['lro_offloaded'] };

/**
 * An outputSchema that also allows OFFLOADED_SCHEMA. Keywords that only work at the root ($schema, $id, and the
 * definitions that $ref points into) stay at the root.
 */
export function allowOffloaded(schema: Schema): Schema {
  const { $schema, $id, $defs, definitions, ...rest } = schema;
  const root: Schema = { type: 'object' };
  if ($schema !== undefined) root.$schema = $schema;
  if ($id !== undefined) root.$id = $id;
  if ($defs !== undefined) root.$defs = $defs;
  if (definitions !== undefined) root.definitions = definitions;
  root.anyOf = [rest, OFFLOADED_SCHEMA];
  return root;
}

/** One page of the upstream's tools/list result, merged with lro's tools. */
export function mergeToolList(
  result: { tools?: UpstreamTool[]; nextCursor?: string; [k: string]: unknown },
  lro: ListedTool[],
  offloads: (tool: string) => boolean,
  warn: (message: string) => void,
): Record<string, unknown> {
  const own = new Set(lro.map((t) => t.name));
  const tools: unknown[] = [];
  for (const t of result.tools ?? []) {
    if (own.has(t.name)) {
      warn(`the upstream's tool ${t.name} is hidden: lro's own tool of that name takes its place`);
      continue;
    }
    tools.push(t.outputSchema && offloads(t.name) ? { ...t, outputSchema: allowOffloaded(t.outputSchema) } : t);
  }
  if (!result.nextCursor) tools.push(...lro);
  return { ...result, tools };
}
