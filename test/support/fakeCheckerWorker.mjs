// A stand-in for the type-check worker that speaks its protocol, for the CheckerThread tests: the text says what to do.
import { parentPort } from 'node:worker_threads';

let seen = 0;
parentPort.on('message', (request) => {
  seen++;
  // "crash" stops the thread as an uncaught error does; "slow:N" holds the thread N ms, as a long check does.
  if (request.text === 'crash') throw new Error('worker blew up');
  if (request.text === 'fail') return parentPort.postMessage({ id: request.id, error: 'the check threw' });
  const slow = /^slow:(\d+)$/.exec(request.text);
  if (slow) {
    const until = Date.now() + Number(slow[1]);
    while (Date.now() < until);
  }
  parentPort.postMessage({ id: request.id, diagnostics: [{ start: 0, end: 0, message: `#${seen} ${request.fsPath} ${request.text}` }] });
});
