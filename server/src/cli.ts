// The assistant-ls command line: starts the language server on stdio or a socket.
import type { MessageWriter } from 'vscode-languageserver/node';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { format } from 'node:util';
import { FramedMessageReader, FramingError } from './lsp/framedReader.js';
import { FramedMessageWriter } from './lsp/framedWriter.js';
import { startServer } from './lsp/server.js';

const USAGE = `assistant-ls: a language server with a traceable, multi-agent development assistant.

Usage:
  assistant-ls --stdio          serve the Language Server Protocol on stdin/stdout
  assistant-ls --socket=PORT    connect to an editor listening on 127.0.0.1:PORT and serve there
  assistant-ls trace ...        which code the assistant produced, and why (assistant-ls trace --help)
  assistant-ls eval <repo> ...  measure agents on a repository's cases (assistant-ls eval --help)
  assistant-ls --version        print the version
  assistant-ls --help           print this help

Environment: OPENAI_API_KEY registers a model agent; OPENAI_BASE_URL points it at any
OpenAI-compatible endpoint; ASSISTANT_MODEL chooses the model.`;

/**
 * Serves on a byte stream. The process ends when the stream ends or its framing breaks (see docs/protocol.md,
 * "Robustness"), or on SIGTERM, with 0 when the client had sent `shutdown`, 1 otherwise; first the messages already
 * read are handled and the trace written (an editor that quits right after the user's choice loses nothing).
 */
function serve(input: Readable, writer: MessageWriter): void {
  const reader = new FramedMessageReader(input, (response) => void writer.write(response).catch(() => undefined));
  const { gate, settle } = startServer(reader, writer);
  let ending = false;
  const end = (): void => {
    if (ending) return;
    ending = true;
    void settle().finally(() => process.exit(gate.shutdownReceived ? 0 : 1));
  };
  process.on('SIGTERM', end);
  reader.onError((error) => {
    if (error instanceof FramingError) process.stderr.write(`assistant-ls: closing the connection: ${error.message}\n`);
  });
  reader.onClose(end);
  input.on('end', end);
  input.on('close', end);
}

/** A failure nobody awaited is logged and the server keeps serving; one rejected promise must not end every request. */
function keepServingOnUnhandledRejections(): void {
  process.on('unhandledRejection', (reason) => {
    const detail = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    process.stderr.write(`assistant-ls: unhandled rejection: ${detail}\n`);
  });
}

/** Runs a subcommand's main on its arguments; its answer is the exit code, once stdout has been written out. */
function runSubcommand(name: string, load: () => Promise<(argv: string[]) => Promise<number>>, argv: string[]): void {
  void load()
    .then((subcommand) => subcommand(argv))
    .then(
      (code) => process.stdout.write('', () => process.exit(code)),
      (error: unknown) => {
        process.stderr.write(`assistant-ls ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
}

function main(argv: string[]): void {
  // Subcommands with command lines of their own, loaded only when asked for: the trace from a terminal
  // (server/src/traceCli/, read-only) and the evaluation harness (server/src/eval/).
  if (argv[0] === 'trace') return runSubcommand('trace', async () => (await import('./traceCli/traceCli.js')).traceMain, argv.slice(1));
  if (argv[0] === 'eval') return runSubcommand('eval', async () => (await import('./eval/cli.js')).evalMain, argv.slice(1));
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (argv.includes('--version')) {
    process.stdout.write('0.1.0\n');
    return;
  }
  const socketArg = argv.find((a) => a.startsWith('--socket'));
  if (argv.includes('--stdio')) {
    // stdout carries the protocol: anything a dependency logs must go to stderr instead.
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      console[level] = (...args: unknown[]) => void process.stderr.write(`${format(...args)}\n`);
    }
    keepServingOnUnhandledRejections();
    // A client that vanishes (stdin closed) ends the server; the code says whether it had asked to shut down.
    serve(process.stdin, new FramedMessageWriter(process.stdout));
    return;
  }
  if (socketArg) {
    const port = Number(socketArg.includes('=') ? socketArg.split('=')[1] : argv[argv.indexOf(socketArg) + 1]);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      process.stderr.write(`assistant-ls: --socket needs a port number, e.g. --socket=7000\n`);
      process.exit(2);
    }
    const socket = net.createConnection(port, '127.0.0.1');
    // Messages are small and each waits for an answer: without this, Nagle's algorithm holds a reply until the
    // editor's delayed acknowledgement (about 40 ms per exchange).
    socket.setNoDelay(true);
    socket.on('error', (error) => {
      process.stderr.write(`assistant-ls: cannot connect to 127.0.0.1:${port}: ${error.message}\n`);
      process.exit(1);
    });
    keepServingOnUnhandledRejections();
    serve(socket, new FramedMessageWriter(socket, () => socket.destroy()));
    return;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

main(process.argv.slice(2));
