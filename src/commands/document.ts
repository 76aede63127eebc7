// What `lro offload` and `lro info` give an MCP tool call besides their text (budget.ts giveValue): the document
// their JSON prints, as a value (a descriptor, a passthrough, a header), so the tool result is made from it and
// nothing printed is parsed back.
import { giveValue } from '../budget.js';
import type { IO } from '../io.js';

/** The document a run printed as JSON, as it gave it. */
export interface GivenDocument {
  document: object;
}

/** Gives a document to the caller that takes values (an MCP tool call), if any. */
export function giveDocument(io: Pick<IO, 'run'>, document: object): void {
  giveValue(io, { document } satisfies GivenDocument);
}
