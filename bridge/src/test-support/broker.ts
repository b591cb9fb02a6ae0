import net from 'node:net';
import { Aedes } from 'aedes';

/**
 * An in-process aedes broker (MQTT 3.1.1, like the app's). stop() drops every
 * connection and stops listening but keeps the broker and its retained
 * messages, so start() again is "the broker is back".
 */
export class TestBroker {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  private constructor(readonly aedes: Aedes) {}

  /** Listens on a free port, or on the given one. */
  static async create(port = 0): Promise<TestBroker> {
    const broker = new TestBroker(await Aedes.createBroker());
    broker.port = port;
    await broker.start();
    return broker;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.server !== null) return;
    const server = net.createServer({ noDelay: true }, (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      this.aedes.handle(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  async close(): Promise<void> {
    await this.stop();
    await new Promise<void>((resolve) => this.aedes.close(() => resolve()));
  }
}
