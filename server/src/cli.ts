// The assistant-ls command line: starts the language server on stdio or a socket.
import { StreamMessageReader, StreamMessageWriter, SocketMessageReader, SocketMessageWriter } from 'vscode-languageserver/node';
import net from 'node:net';
import { format } from 'node:util';
import { startServer } from './lsp/server.js';

const USAGE = `assistant-ls: a language server with a traceable, multi-agent development assistant.

Usage:
  assistant-ls --stdio          serve the Language Server Protocol on stdin/stdout
  assistant-ls --socket=PORT    connect to an editor listening on 127.0.0.1:PORT and serve there
  assistant-ls --version        print the version
  assistant-ls --help           print this help

Environment: OPENAI_API_KEY registers a model agent; OPENAI_BASE_URL points it at any
OpenAI-compatible endpoint; ASSISTANT_MODEL chooses the model.`;

function main(argv: string[]): void {
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
    const { gate } = startServer(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
    // A client that vanishes ends the server; the code says whether it had asked to shut down.
    const end = (): never => process.exit(gate.shutdownReceived ? 0 : 1);
    process.stdin.on('end', end);
    process.stdin.on('close', end);
    return;
  }
  if (socketArg) {
    const port = Number(socketArg.includes('=') ? socketArg.split('=')[1] : argv[argv.indexOf(socketArg) + 1]);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      process.stderr.write(`assistant-ls: --socket needs a port number, e.g. --socket=7000\n`);
      process.exit(2);
    }
    const socket = net.createConnection(port, '127.0.0.1');
    socket.on('error', (error) => {
      process.stderr.write(`assistant-ls: cannot connect to 127.0.0.1:${port}: ${error.message}\n`);
      process.exit(1);
    });
    const { gate } = startServer(new SocketMessageReader(socket), new SocketMessageWriter(socket));
    socket.on('close', () => process.exit(gate.shutdownReceived ? 0 : 1));
    return;
  }
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

main(process.argv.slice(2));
