// YAML outputs for the YAML records (issue 38; test/e2e/yaml.test.ts), in fixtures/yaml:
// - kubectl-get-pods.yaml: `kubectl get pods -A -o yaml` of the listing in fixtures/outputs/kubectl-get-pods.json,
//   written as kubectl writes it (a List, keys sorted, a sequence's `- ` at its key's indentation): no cluster here
// - github-workflow-ci.yml: a real GitHub Actions workflow, copied from the fast-uri package in node_modules
//   (BSD-3-Clause, github.com/fastify/fast-uri, .github/workflows/ci.yml)
// Usage: node bench/make-yaml-outputs.mjs [OUTDIR]   (default fixtures/yaml)
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

const root = new URL('..', import.meta.url).pathname;
const out = process.argv[2] ?? join(root, 'fixtures/yaml');
mkdirSync(out, { recursive: true });
const list = JSON.parse(readFileSync(join(root, 'fixtures/outputs/kubectl-get-pods.json'), 'utf8'));
writeFileSync(join(out, 'kubectl-get-pods.yaml'), stringify(list, { sortMapEntries: true, indentSeq: false, lineWidth: 0 }));
copyFileSync(join(root, 'node_modules/fast-uri/.github/workflows/ci.yml'), join(out, 'github-workflow-ci.yml'));
