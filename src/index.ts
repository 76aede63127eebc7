// The library API: what the CLI is built on, for programs (an MCP server, an agent loop) that offload in-process
// and look inside stored results by id, getting values back rather than printed text.
export { offload, DEFAULT_THRESHOLD, DEFAULT_TTL_SECONDS } from './offload.js';
export type { OffloadOptions, OffloadResult, OffloadInput, InputFormat } from './offload.js';
export { openResult, readResult, describeResult } from './api/results.js';
export type { StoreOptions, ResultRef, ReadResultOptions, RecordValue, DescribeResultOptions } from './api/results.js';
export { grepResult, grepStore, jqResult } from './api/search.js';
export type { GrepResultOptions, GrepLine, GrepOutput, JqResultOptions, JqOutput } from './api/search.js';
export type { GrepStoreOptions, GrepStoreResult, GrepStoreOutput } from './api/search.js';
export { whereResult, countResult } from './api/query.js';
export type { WhereResultOptions, WhereRecord, CountResultOptions, CountOutput } from './api/query.js';
export { diff } from './compare/api.js';
export type { DiffOptions, DiffOutput } from './compare/api.js';
export type { DiffSummary, DiffItem, DiffSide, DiffCounts, DiffKind, FieldChange, TestTally } from './compare/model.js';
export { LroError, EXIT } from './errors.js';
export type { Descriptor, Summary } from './describe/descriptor.js';
export type { JqRecipe } from './describe/recipes.js';
export type { Header, ContentType, Source } from './format/header.js';
export { openResultFile, readRecords, originalContent, type ResultFile, type RecordLine } from './format/reader.js';
export { resolveResult } from './store/resolve.js';
export { storePath } from './store/dir.js';
export type { Encoding } from './tokens/tokenizer.js';
