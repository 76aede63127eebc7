// What `lro offload` and `lro info` give an MCP tool call besides their text (budget.ts giveValue): the document
// their JSON prints, as a value (a descriptor, a passthrough, a header), so the tool result is made from it and
// nothing printed is parsed back.
import { giveValue } from '../budget.js';

/** The document a run printed as JSON, as it gave it. */
export interface GivenDocument {
  document: object;
}

/** Gives a document to the MCP tool call this runs for, if any. */
export function giveDocument(document: object): void {
  giveValue({ document } satisfies GivenDocument);
}
