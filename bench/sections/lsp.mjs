// Benchmark section (own process): one server's code-action latencies over stdio, measured by a client that stays out of the server's way.
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchClient } from '../lspClient.mjs';
import { attempt, cacheHome, initOptions, now, removeScratchDirectories, sectionMain, summarize, waitUntilIdle } from '../support.mjs';

/** Fresh servers: the `initialize` round trip, and the first code-action list on the large file after opening it. */
async function startup(server, project, runs) {
  const initialize = [];
  const spawnToInitialized = [];
  const firstCodeAction = [];
  const memory = [];
  for (let i = 0; i < runs; i++) {
    const spawned = now();
    const client = BenchClient.spawn(server, project.root, cacheHome());
    try {
      // The round trip is timed once the process answers; from spawn it also holds Node's start and module loading.
      await client.ready();
      initialize.push(await client.initialize(initOptions(server)));
      spawnToInitialized.push(now() - spawned);
      const buffer = await client.open(project.largeFile.path);
      const start = now();
      await client.codeActions(buffer.uri, project.firstPosition);
      firstCodeAction.push(now() - start);
      memory.push(client.peakMemory().peakRssMB);
    } finally {
      await client.shutdown();
    }
  }
  return { initialize: summarize(initialize), spawnToInitialized: summarize(spawnToInitialized), firstCodeAction: summarize(firstCodeAction), peakRssMB: Math.max(...memory) };
}

/**
 * A fresh server with the large file open, once it went idle after the open (both servers work in the background
 * after an open: our diagnostics cache, tsserver's project load and diagnostics): `measure(client, buffer, settleMs)`.
 */
async function onIdleServer(server, project, measure) {
  const client = BenchClient.spawn(server, project.root, cacheHome());
  try {
    await client.initialize(initOptions(server));
    const buffer = await client.open(project.largeFile.path);
    await client.codeActions(buffer.uri, project.firstPosition);
    const settleMs = await waitUntilIdle(client.pid);
    return await measure(client, buffer, settleMs);
  } finally {
    await client.shutdown();
  }
}

/** Code actions at every position, `rounds` times over. */
function codeActionsAtPositions(server, project, positions, rounds) {
  return onIdleServer(server, project, async (client, buffer, settleMs) => {
    const samples = [];
    let actions = 0;
    for (let round = 0; round < rounds; round++) {
      for (const position of positions) {
        const start = now();
        const result = await client.codeActions(buffer.uri, position);
        samples.push(now() - start);
        actions += result?.length ?? 0;
      }
    }
    // The samples themselves too (to the microsecond): the run pools those of several fresh servers.
    return { codeAction: summarize(samples), samples: samples.map((s) => Math.round(s * 1000) / 1000), positions: positions.length, rounds, actionsPerRequest: Math.round((actions / samples.length) * 100) / 100, settleMs, ...client.peakMemory() };
  });
}

/**
 * At each of `count` positions a character is typed (an incremental `didChange`, as an editor sends it) and the code
 * actions there are asked for at once, as an editor asks for its light bulb while the user types; the character is
 * then deleted again, untimed.
 */
function codeActionsAfterEdits(server, project, positions, count) {
  return onIdleServer(server, project, async (client, buffer) => {
    const original = buffer.text;
    const samples = [];
    const step = Math.max(1, Math.floor(positions.length / count));
    for (let i = 0; samples.length < count && i < positions.length; i += step) {
      const position = positions[i];
      await client.setTextIncrementally(buffer.uri, { range: { start: position, end: position }, text: ' ' });
      const start = now();
      await client.codeActions(buffer.uri, position);
      samples.push(now() - start);
      await client.restore(buffer.uri, original);
    }
    return { codeAction: summarize(samples), edits: samples.length };
  });
}

/**
 * A pause in typing: at each of `rounds` places a character is typed, and after a pause the code actions are asked
 * for every 10 ms for `windowMs`, at positions spread over the file (the cursor moving, the light bulb following),
 * while the server checks the file (ours 400 ms after the last change); then the character is deleted and the server
 * left to go idle. Every request is timed; `worstPerRound` is the longest wait in each round.
 */
function codeActionsDuringPauses(server, project, positions, rounds, windowMs) {
  return onIdleServer(server, project, async (client, buffer) => {
    const original = buffer.text;
    const samples = [];
    const worstPerRound = [];
    for (let round = 0; round < rounds; round++) {
      const typed = positions[Math.floor(((round + 0.5) * positions.length) / rounds)];
      await client.setTextIncrementally(buffer.uri, { range: { start: typed, end: typed }, text: ' ' });
      await sleep(300);
      let worst = 0;
      for (const until = now() + windowMs; now() < until; ) {
        const start = now();
        await client.codeActions(buffer.uri, positions[samples.length % positions.length]);
        const elapsed = now() - start;
        samples.push(elapsed);
        worst = Math.max(worst, elapsed);
        await sleep(10);
      }
      worstPerRound.push(Math.round(worst * 10) / 10);
      await client.restore(buffer.uri, original);
      await waitUntilIdle(client.pid);
    }
    return { codeAction: summarize(samples), rounds, windowMs, worstPerRound, ...client.peakMemory() };
  });
}

sectionMain(async ({ server, project, positions, runs, only }) => {
  try {
    // A further fresh server for the code actions at the positions alone (see `pooledPositions` in run.mjs).
    if (only === 'positions') return { positions: await attempt(`${server} code actions`, () => codeActionsAtPositions(server, project, positions, runs.rounds)) };
    const start = await attempt(`${server} startup`, () => startup(server, project, runs.startup));
    const atPositions = await attempt(`${server} code actions`, () => codeActionsAtPositions(server, project, positions, runs.rounds));
    const afterEdits = await attempt(`${server} code actions after edits`, () => codeActionsAfterEdits(server, project, positions, runs.edits));
    const duringPauses = await attempt(`${server} code actions during pauses in typing`, () => codeActionsDuringPauses(server, project, positions, runs.pauses, runs.pauseWindowMs));
    return { startup: start, positions: atPositions, afterEdits, duringPauses };
  } finally {
    removeScratchDirectories();
  }
});
