// Builds dist/secrets/rules.json, the secret rules lro scans for (src/secrets/), from data that is never edited
// by hand: gitleaks' published default rules (data/secrets/gitleaks.toml, fetched verbatim; source.json names
// the commit) and lro's own supplement (data/secrets/lro.toml). Each rule's Go regular expression is translated
// mechanically (scripts/re2-to-js.mjs); a rule that cannot be translated exactly, or that can only fire on a file
// name (`path`), is dropped and listed in the output's `dropped`, which data/secrets/README.md reproduces (a test
// keeps the two equal).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { buildKeywordAutomaton } from './build-keywords.mjs';
import { anchorOf, requiredLiterals, translateRe2, Untranslatable } from './re2-to-js.mjs';

const root = new URL('..', import.meta.url).pathname;
/** The trigger of PEM blocks (src/secrets/stream.ts), after the rules' own in the keyword automaton. */
export const PEM_TRIGGER = '-----begin';

/** A regex of an allowlist, translated; throws Untranslatable. */
function allowRegex(pattern) {
  const t = translateRe2(pattern);
  return { source: t.source, flags: t.flags };
}

/**
 * The allowlists of a rule that can apply to output on stdin: one that needs a path (or a commit) to be true can
 * never apply there — an OR list is then left with its regexes and stopwords, an AND list never allows anything.
 */
function allowlists(lists = []) {
  const out = [];
  let ignored = 0;
  for (const a of lists) {
    const and = (a.condition ?? 'OR').toUpperCase() === 'AND';
    const needsFile = (a.paths?.length ?? 0) > 0 || (a.commits?.length ?? 0) > 0;
    if ((and && needsFile) || (!a.regexes?.length && !a.stopwords?.length)) {
      ignored++;
      continue;
    }
    const target = a.regexTarget ?? 'secret';
    if (!['secret', 'match', 'line'].includes(target)) throw new Untranslatable(`allowlist regexTarget ${target}`);
    out.push({
      condition: and ? 'AND' : 'OR',
      target,
      regexes: (a.regexes ?? []).map(allowRegex),
      stopwords: (a.stopwords ?? []).map((w) => w.toLowerCase()),
    });
  }
  return { lists: out, ignored };
}

/** One rule as the engine loads it, or the reason it is dropped. */
function buildRule(r, origin) {
  if (r.path !== undefined) {
    return { dropped: `fires only on files whose name matches ${JSON.stringify(r.path)}; output on stdin has no file name` };
  }
  if (r.regex === undefined) return { dropped: 'has no regex' };
  if (r.requiredRules?.length) return { dropped: 'needs other rules nearby (requiredRules), which lro does not implement' };
  try {
    const t = translateRe2(r.regex);
    const { lists, ignored } = allowlists(r.allowlists);
    const keywords = (r.keywords ?? []).map((k) => k.toLowerCase());
    return {
      rule: {
        id: r.id,
        origin,
        source: t.source,
        flags: t.flags,
        groups: t.groups,
        // RE2 is linear; this pattern can backtrack exponentially in JavaScript: run it on V8's linear engine
        ...(t.risky ? { linear: true } : {}),
        // lro's own: a finding of another rule over the same value wins (src/secrets/scan.ts)
        ...(r.fallback ? { fallback: true } : {}),
        // the whole match is hidden when the capture groups only label alternatives or repeat
        hideMatch: t.groups === 0 || t.labels,
        secretGroup: r.secretGroup ?? 0,
        entropy: r.entropy ?? 0,
        keywords,
        // a rule without keywords runs on every line in gitleaks; these literals (one of which every match
        // contains) keep it off the lines that cannot match
        prefilter: keywords.length ? null : requiredLiterals(r.regex),
        // where a match must hold one of a few literals: the regex is tried only near them
        anchor: anchorOf(r.regex),
        allowlists: lists,
        ...(ignored ? { ignoredAllowlists: ignored } : {}),
      },
    };
  } catch (e) {
    if (e instanceof Untranslatable) return { dropped: `regex cannot be translated exactly: ${e.message}` };
    throw e;
  }
}

/** The rule table from the two TOML texts; exported for the tests. */
export function buildRuleTable(gitleaksToml, lroToml, source) {
  const g = parseToml(gitleaksToml);
  const l = parseToml(lroToml);
  const rules = [];
  const dropped = [];
  const ids = new Set();
  for (const [origin, doc] of [
    ['gitleaks', g],
    ['lro', l],
  ]) {
    for (const r of doc.rules ?? []) {
      if (ids.has(r.id)) throw new Error(`duplicate secret rule id ${r.id}`);
      ids.add(r.id);
      const built = buildRule(r, origin);
      if (built.rule) rules.push(built.rule);
      else dropped.push({ id: r.id, origin, reason: built.dropped });
    }
  }
  // lro's own allowlists for a rule of gitleaks' (what its output shows that a source file never does)
  for (const extra of l.ruleAllowlists ?? []) {
    const rule = rules.find((r) => r.id === extra.rule);
    if (!rule) throw new Error(`data/secrets/lro.toml: ruleAllowlists names ${extra.rule}, no rule of that id`);
    rule.allowlists.push(...allowlists([extra]).lists);
  }
  const global = g.allowlist ?? {};
  // every anchor literal once; a rule's anchor names its literals by index
  const anchorLiterals = [...new Set(rules.flatMap((r) => r.anchor?.literals ?? []))].sort();
  for (const r of rules) if (r.anchor) r.anchor.ids = r.anchor.literals.map((l) => anchorLiterals.indexOf(l));
  return {
    source,
    rules,
    anchorLiterals,
    allowlist: {
      regexes: (global.regexes ?? []).map(allowRegex),
      stopwords: (global.stopwords ?? []).map((w) => w.toLowerCase()),
    },
    dropped,
  };
}

/** Writes dist/secrets/rules.json. */
export function buildSecrets(outDir = `${root}dist/secrets`) {
  const read = (name) => readFileSync(`${root}data/secrets/${name}`, 'utf8');
  const source = JSON.parse(read('source.json'));
  const gitleaks = read('gitleaks.toml');
  if (gitleaks.length !== source.chars) throw new Error(`data/secrets/gitleaks.toml has ${gitleaks.length} characters, source.json says ${source.chars}: fetch it again`);
  const table = buildRuleTable(gitleaks, read('lro.toml'), source);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}/rules.json`, `${JSON.stringify(table)}\n`);
  // the keyword automaton: each rule's keywords (or prefilter), then `-----begin` (PEM blocks), then each anchor
  // literal (the scanner tries a rule's regex at the literals it finds: see src/secrets/scan.ts)
  const triggers = [...table.rules.map((r) => (r.keywords.length ? r.keywords : r.prefilter)), [PEM_TRIGGER], ...table.anchorLiterals.map((l) => [l])];
  writeFileSync(`${outDir}/keywords.bin`, buildKeywordAutomaton(triggers));
  return table;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const t = buildSecrets();
  console.log(`${t.rules.length} secret rules; dropped: ${t.dropped.map((d) => d.id).join(', ') || 'none'}`);
}
