import { connect, type Socket } from 'node:net';

export interface HttpAnswer {
  status: number;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * One client's keep-alive HTTP/1.1 connection, one request at a time, as a long-polling client
 * holds it. The benchmarks run thousands of clients in one load-generator process on the same
 * cores as the servers; node:http's client costs several times this per request, so with it the
 * load generator, not the server, set the figures of a 10,000-recipient burst. Answers must carry
 * Content-Length (every answer of ours does); anything else is an error.
 */
export class HttpConnection {
  private socket: Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: {
    resolve: (answer: HttpAnswer) => void;
    reject: (err: Error) => void;
  } | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends `GET path` with these headers and resolves with the answer. */
  get(path: string, headers: Record<string, string>): Promise<HttpAnswer> {
    if (this.pending) return Promise.reject(new Error('a request is already in flight'));
    const socket = this.socket ?? this.open();
    let head = `GET ${path} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    return new Promise<HttpAnswer>((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(`${head}\r\n`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Socket {
    const socket = connect(this.port, this.host);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    const fail = (err: Error) => {
      if (this.socket === socket) this.socket = null;
      this.buffer = Buffer.alloc(0);
      const pending = this.pending;
      this.pending = null;
      pending?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    this.socket = socket;
    return socket;
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const headerEnd = this.buffer.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = this.buffer.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.socket?.destroy(new Error(`answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const bodyStart = headerEnd + HEADER_END.length;
    const bodyEnd = bodyStart + Number(length[1]);
    if (this.buffer.length < bodyEnd) return;
    const answer = {
      status: Number(head.slice(9, 12)),
      body: this.buffer.toString('utf8', bodyStart, bodyEnd),
    };
    this.buffer = this.buffer.subarray(bodyEnd);
    const pending = this.pending;
    this.pending = null;
    if (/\r\nconnection:\s*close/i.test(head)) this.close();
    pending?.resolve(answer);
  }
}
