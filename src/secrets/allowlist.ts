// An allowlist, as gitleaks applies it to a finding (config/allowlist.go, detect/detect.go checkFindingAllowed):
// its regexes are tried on the secret (or on the whole match, or on the line: `target`), its stopwords are
// looked for, lower case, in the secret; with condition OR either allows the finding, with AND both must (lists
// that need a file path or a commit never reach here: see scripts/build-secrets.mjs).

/** An allowlist as built (rules.json). */
export interface AllowlistSpec {
  condition: 'OR' | 'AND';
  target: 'secret' | 'match' | 'line';
  regexes: { source: string; flags: string }[];
  stopwords: string[];
}

/** What a finding is checked against. */
export interface Candidate {
  secret: string;
  match: string;
  line: string;
}

export class Allowlist {
  private readonly regexes: RegExp[];
  private readonly stopwords: string[];

  constructor(private readonly spec: AllowlistSpec) {
    this.regexes = spec.regexes.map((r) => new RegExp(r.source, r.flags));
    this.stopwords = spec.stopwords;
  }

  /** Whether the allowlist lets this finding go (it is not a secret). */
  allows(c: Candidate): boolean {
    const target = this.spec.target === 'match' ? c.match : this.spec.target === 'line' ? c.line : c.secret;
    const regex = this.regexes.length > 0 && target !== '' && this.regexes.some((r) => r.test(target));
    const stop = this.stopwords.length > 0 && c.secret !== '' && this.hasStopword(c.secret);
    if (this.spec.condition === 'AND') return (this.regexes.length === 0 || regex) && (this.stopwords.length === 0 || stop);
    return regex || stop;
  }

  private hasStopword(secret: string): boolean {
    const s = secret.toLowerCase();
    for (const w of this.stopwords) if (s.includes(w)) return true;
    return false;
  }
}
