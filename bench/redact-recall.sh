#!/usr/bin/env bash
# Recall of `lro offload --redact` on secrets named by their key (JSON, JSONL, YAML, ini, TOML, env, code) and in
# URLs, on detect-secrets' and secretlint's fixtures and lro's own (test/secrets/fixtures/keyed-secrets.json),
# per group; false positives on those fixtures' negatives, on the digests set (1,200 lines of digests, UUIDs and
# integrity strings: test/secrets/fixtures/digests.txt, made by bench/redact-digests.mjs) and replacements on the
# corpus. With LRO_BASELINE=/path/to/other/bin/lro.js (a build before a change), every figure is "before -> after".
# VERBOSE=1 lists every case missed and every false positive. Needs: npm run build.
. "$(dirname "$0")/lib.sh"
node "$BENCH_DIR/redact-recall.mjs" "$LRO" ${LRO_BASELINE:+"$LRO_BASELINE"}
