// A trace writer for the kill -9 loops: appends and amends interactions through the built TraceStore as fast as it can, printing each acknowledged write, until it is killed.
import { TraceStore } from '../../dist/server/src/trace/traceStore.js';

const [directory, sessionId, segmentSize = '5'] = process.argv.slice(2);
const session = { id: sessionId, startedAt: new Date().toISOString(), user: 'loop', role: 'developer', workspace: directory, pid: process.pid };
const store = await TraceStore.open({ directory, session, segmentSize: Number(segmentSize), onWarning: (m) => process.stderr.write(`warning: ${m}\n`) });
process.stdout.write('ready\n');
for (let n = 0; ; n++) {
  const id = `${sessionId}-${n}`;
  const at = new Date().toISOString();
  await store.add({
    id,
    sessionId,
    timestamp: at,
    role: 'developer',
    user: 'loop',
    source: 'command',
    text: `write ${n} ${'x'.repeat(n % 7 * 40)}`,
    task: 'document',
    context: {},
    responses: [{ id: `${id}-r`, agent: { name: 'doc-offline', technology: 'rule', isLLM: false }, status: 'ok', text: '/** Loop. */', used: false, startedAt: at, durationMs: 1 }],
  });
  process.stdout.write(`add ${id}\n`);
  if (n % 3 === 1) {
    await store.amendResponse(id, `${id}-r`, { rating: 'up' });
    process.stdout.write(`rate ${id}\n`);
  }
}
