// One finding of `lro doctor` about a harness: what the harness adapters report and the doctor prints.

/** One finding of `lro doctor`. */
export interface Check {
  name: string;
  ok: boolean;
  /** A finding that does not make lro unhealthy (the harness not on this PATH, an untested version). */
  warning?: boolean;
  detail: string;
  fix?: string;
  /** lro is not installed in this harness (so `lro doctor` with no harness named does not count it as broken). */
  absent?: boolean;
}
