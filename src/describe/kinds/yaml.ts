// YAML (kubectl get -o yaml, a Helm chart's values, CI configs, multi-document manifests): its documents, the keys
// at the top of each, and for Kubernetes objects their kinds, over the whole output. A key holding "error"
// (clouderrorreporting:, onError:) is data, not an error line.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, most, TopCounts } from './util.js';

/** A mapping key (plain or quoted), a list item, a comment, a document marker. */
const KEY = /^(\s*)(?:- +)?(?:[\w.$/@-]+|"[^"]*"|'[^']*'):(?:\s|$)/;
const ITEM = /^\s*- /;
const MARK = /^(---|\.\.\.)(\s|$)/;

class YamlCounter implements KindCounter {
  private documents = 0;
  private content = false;
  private readonly top = new TopCounts();
  private readonly kinds = new TopCounts();
  private keys = 0;
  private items = 0;

  line(l: string): void {
    if (MARK.test(l)) {
      if (l.startsWith('---')) this.content = false;
      return;
    }
    if (l.trim() === '' || l.trimStart().startsWith('#')) return;
    if (!this.content) {
      this.documents++;
      this.content = true;
    }
    const m = KEY.exec(l);
    if (m) {
      this.keys++;
      if (m[1] === '' && !l.startsWith('-')) {
        const key = l.slice(0, l.indexOf(':')).replace(/^["']|["']$/g, '');
        this.top.add(key);
        if (key === 'kind') this.kinds.add(l.slice(5).trim());
      }
    } else if (ITEM.test(l)) this.items++;
  }

  end(): KindFacts {
    return {
      kind: 'yaml',
      facts: {
        documents: this.documents,
        ...(this.kinds.size ? { kinds: this.kinds.top(8), ...estimateNote('kinds', this.kinds) } : {}),
        top_level_keys: this.top.top(10),
        ...estimateNote('top_level_keys', this.top),
        keys: this.keys,
        list_items: this.items,
      },
      errors: 'none',
      levels: false,
      next: this.kinds.size
        ? ["lro grep ID '^kind: ' -c", "lro grep ID '^  name: ' -m 40"]
        : ["lro grep ID '^[^ #][^:]*:' -m 40", 'lro read ID --head 40'],
    };
  }
}

export function countYaml(s: TextSample): KindCounter | null {
  const lines = s.lines.filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const first = lines[0] ?? '';
  if (!MARK.test(first) && !/^[\w"'.-][^:]*:(\s|$)/.test(first)) return null;
  // key lines, list items and block scalars' lines (indented under a key)
  if (!most(lines, (l) => KEY.test(l) || ITEM.test(l) || MARK.test(l) || /^\s+\S/.test(l), 0.95, 5)) return null;
  // most lines are keys or list items (a certificate's text is indented too, but mostly hex and prose)
  if (!most(lines, (l) => KEY.test(l) || ITEM.test(l), 0.6, 5)) return null;
  // nesting: keys that open a block (nothing after the colon) followed by a deeper line, twice at least;
  // and not "Key: value   Other: value" columns (stat, some status pages)
  let blocks = 0;
  lines.forEach((l, i) => {
    const m = /^(\s*)(?:- +)?[^:\s][^:]*:\s*$/.exec(l);
    const next = lines[i + 1];
    if (m && next && next.length - next.trimStart().length > m[1].length) blocks++;
  });
  if (blocks < 2 || lines.filter((l) => /\S\s{2,}[A-Za-z][\w ]*: /.test(l)).length > lines.length * 0.05) return null;
  return fed(new YamlCounter(), s);
}
