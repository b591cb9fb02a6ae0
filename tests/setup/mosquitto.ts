// A real Mosquitto 2.0 for a test: its own config in a temp directory, a free
// port, and stop(). `npm test` installs /usr/sbin/mosquitto with apt-get when
// missing (scripts/test.mjs).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { maxPacketSize } from "../../scripts/mosquitto-passwords.mjs";

export const MOSQUITTO = "/usr/sbin/mosquitto";

export type RunningMosquitto = {
  port: number;
  url: string;
  /** The bridges' listener (use_username_as_clientid), when asked for. */
  bridgeUrl: string | null;
  dir: string;
  /** Rereads the password and ACL files (SIGHUP). */
  reload(): void;
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, output: () => string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited (${child.exitCode}):\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${port}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Starts Mosquitto with the given password and ACL files (as written by
 * scripts/mosquitto-passwords.mjs) and the settings docs/mqtt.md recommends.
 * bridgeListener: a second listener as docs/mqtt.md recommends for the
 * doors and sensors, where each client's id is its username.
 */
export async function startMosquitto(options: { passwordFile: string; aclFile: string; dir?: string; bridgeListener?: boolean }): Promise<RunningMosquitto> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "coliving-mosquitto-"));
  const port = await freePort();
  const bridgePort = options.bridgeListener ? await freePort() : null;
  const config = path.join(dir, "mosquitto.conf");
  fs.writeFileSync(
    config,
    [
      "per_listener_settings false",
      `listener ${port} 127.0.0.1`,
      "allow_anonymous false",
      `password_file ${options.passwordFile}`,
      `acl_file ${options.aclFile}`,
      "set_tcp_nodelay true",
      "max_queued_messages 10000",
      `max_packet_size ${maxPacketSize(0)}`,
      "persistence false",
      // Run as whoever runs the tests (as root Mosquitto would switch to the
      // `mosquitto` user, who cannot read the temp files).
      `user ${os.userInfo().username}`,
      "log_dest stdout",
      "log_type error",
      "log_type warning",
      ...(bridgePort !== null ? [`listener ${bridgePort} 127.0.0.1`, "use_username_as_clientid true"] : []),
      "",
    ].join("\n"),
  );
  if (!fs.existsSync(MOSQUITTO)) {
    throw new Error(`${MOSQUITTO} is missing: install it with apt-get install -y mosquitto (npm test does it as root)`);
  }
  const child = spawn(MOSQUITTO, ["-c", config], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitForPort(port, child, () => output);
  if (bridgePort !== null) await waitForPort(bridgePort, child, () => output);
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    bridgeUrl: bridgePort !== null ? `mqtt://127.0.0.1:${bridgePort}` : null,
    dir,
    reload: () => child.kill("SIGHUP"),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
