// The "after" listing of fixtures/outputs/kubectl-get-pods.json, for `lro diff` by entity (test/e2e/diff.test.ts):
// what a rollout does to a cluster between two `kubectl get pods -A -o json`. Every web pod on 1.4.0 is bumped to
// 2.1.0 (26 records changed alike), one api pod goes into CrashLoopBackOff (the one change an agent looks for),
// the two first cron pods are gone and three worker pods are new. Deterministic: the same input, the same output.
// Usage: node bench/make-pods-after.mjs [IN] [OUT]
import { readFileSync, writeFileSync } from 'node:fs';

const [input = 'fixtures/outputs/kubectl-get-pods.json', output = 'fixtures/outputs/kubectl-get-pods-after.json'] = process.argv.slice(2);
const list = JSON.parse(readFileSync(input, 'utf8'));
const crash = 'api-a7sdl-3h0c';
let cron = 0;
const items = [];
for (const pod of list.items) {
  const c = pod.spec.containers[0];
  if (c.image.startsWith('registry.example.com/cron:') && cron++ < 2) continue;
  if (c.image === 'registry.example.com/web:1.4.0') c.image = 'registry.example.com/web:2.1.0';
  if (pod.metadata.name === crash) {
    const s = pod.status.containerStatuses[0];
    s.ready = false;
    s.restartCount += 7;
    s.state = { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=main' } };
  }
  items.push(pod);
}
for (const [i, suffix] of ['qk2vd-x8pm', 'qk2vd-r4tn', 'qk2vd-m7wz'].entries()) {
  items.push({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `worker-${suffix}`, namespace: 'payments', labels: { app: 'worker' } },
    spec: { containers: [{ name: 'main', image: 'registry.example.com/worker:1.5.0' }], nodeName: `node-${i}` },
    status: { phase: 'Pending', containerStatuses: [{ name: 'main', ready: false, restartCount: 0 }], startTime: '2026-11-12T00:00:00Z' },
  });
}
writeFileSync(output, `${JSON.stringify({ ...list, items }, null, 4)}\n`);
