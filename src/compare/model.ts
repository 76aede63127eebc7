// What `lro diff A B` answers, as data: the summary (both results side by side, what kind of comparison, how
// many of each change) and the items (one change each), the same for `--json`, the library's diff() and the
// printed text. Items are listed in a fixed order, so `--from N` (where a cut output stopped) is stable.

/** How the two results were compared. */
export type DiffKind = 'text' | 'records' | 'tests' | 'binary';

/** One result as the summary shows it. */
export interface DiffSide {
  id: string;
  /** The command that made it, when lro knows it (lro run, --query). */
  command: string | null;
  content_type: string;
  records: number;
  bytes: number;
  timestamp: string;
}

/** How many tests of a result passed, failed and were skipped (by their last status). */
export interface TestTally {
  passed: number;
  failed: number;
  skipped: number;
}

/** How many of each change, whatever part of them is printed. */
export interface DiffCounts {
  tests_newly_failing: number;
  tests_newly_passing: number;
  tests_still_failing: number;
  records_changed: number;
  records_added: number;
  records_removed: number;
  templates_new: number;
  templates_gone: number;
  templates_changed: number;
  error_lines_new: number;
  /** Lines of the unified diff (--lines). */
  diff_lines: number;
}

export interface DiffSummary {
  type: 'summary';
  /** The same content (the same sha256 of the input): exit 0. */
  equal: boolean;
  kind: DiffKind;
  /** Records are matched by this field (records kind): a jq path, or null when matched by their whole content. */
  key?: string | null;
  /** The records are the rows of two tables (ps, lsof, CSV…), each an object of its header's columns. */
  rows?: true;
  /** Records whose key an earlier record of the same result had: the key is not unique (matched to the last). */
  key_repeats?: { a: number; b: number };
  a: DiffSide;
  b: DiffSide;
  counts: DiffCounts;
  /** Test results found in each, when either has any. */
  tests?: { a: TestTally; b: TestTally };
  /** Two runs of a test suite as text: only the tests are compared (--lines adds the unified diff). */
  tests_only?: true;
  /** Why the unified diff (--lines) was left out, when it was. */
  lines_note?: string;
}

/** One field that differs between two matched records. */
export interface FieldChange {
  field: string;
  /** The JSON text of the value, or undefined where the field is absent. */
  old?: string;
  new?: string;
  /**
   * In an item standing for several records: the field changed in each of them, each with values of its own (a
   * resourceVersion, a start time), so they were gathered by the field's name; `old` and `new` are the first's.
   */
  varies?: boolean;
}

export type DiffItem =
  /** `message`: why a test failing in B failed, as its runner said it (pytest's summary, go's `file_test.go:N:` line). */
  | { type: 'test'; change: 'newly_failing' | 'newly_passing' | 'still_failing'; name: string; record_a?: number; record_b?: number; message?: string }
  /**
   * Records changed the same way (the same fields, from the same values to the same values) are one item: `count`
   * of them, `key` and the records of the first, `keys` the first few (when more than one).
   */
  | ({ type: 'record'; change: 'changed'; key: string; record_a: number; record_b: number; changes: FieldChange[]; more_changes: number } & Gathered)
  /**
   * Records added or removed whose keys have one pattern (web-*-*) are one item (`pattern`, when more than one).
   * `row`: a table's row added or removed, as its line (spaces run together): which process, not only its PID.
   */
  | ({ type: 'record'; change: 'added'; key: string; record_b: number; row?: string; pattern?: string } & Gathered)
  | ({ type: 'record'; change: 'removed'; key: string; record_a: number; row?: string; pattern?: string } & Gathered)
  | { type: 'template'; change: 'new' | 'gone' | 'count'; template: string; count_a: number; count_b: number; first_a?: number; first_b?: number }
  | { type: 'error_line'; record_b: number; text: string }
  | { type: 'line'; text: string };

/** How many records an item of records stands for, and the keys of the first few when more than one. */
export interface Gathered {
  count: number;
  keys?: string[];
  /** Keys not listed: count - keys.length. */
  more_keys?: number;
}

/** Record numbers an item needs the text of, on either side. */
export interface Needs {
  a?: number | number[];
  b?: number | number[];
}

/** The texts of the records a window of items needs (display text: a text line, a record's JSON). */
export interface Texts {
  a: Map<number, string>;
  b: Map<number, string>;
}

/** A list of items of one kind, under one heading: what to read for item i, and item i once read. */
export interface Section {
  heading: string;
  size: number;
  /** Items that stand for several records each: how many records in all (the heading says both). */
  records?: number;
  needs(i: number): Needs;
  item(i: number, texts: Texts): DiffItem;
}

/** Everything the comparison found: the summary and the sections, in the order they are printed. */
export interface Comparison {
  summary: DiffSummary;
  sections: Section[];
}

export function emptyCounts(): DiffCounts {
  return {
    tests_newly_failing: 0,
    tests_newly_passing: 0,
    tests_still_failing: 0,
    records_changed: 0,
    records_added: 0,
    records_removed: 0,
    templates_new: 0,
    templates_gone: 0,
    templates_changed: 0,
    error_lines_new: 0,
    diff_lines: 0,
  };
}
