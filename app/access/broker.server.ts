// The embedded MQTT broker (aedes, MQTT 3.1.1), used when MQTT_URL is unset.
// No anonymous clients: each door's bridge logs in with its doorId and its
// secret (checked against the stored Mosquitto-format hash), the app with an
// internal account whose password lives only in this process. A door may use
// only its own topics (contract.ts); the app may do everything. Doors get in
// only once the access service's own client has subscribed (openToDoors), so
// nothing a door sends after a restart is acknowledged and then lost; a door's
// packets are capped at MAX_DOOR_PACKET_BYTES. A client id belongs to one
// account: `coliving-bridge-<doorId>` to that door and `coliving-sensor-<id>`
// to that sensor by rule (clientIdOwner), any other id to the account that
// first used it.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { getSensorSecretHash } from "~/models/building-sensor.server";
import { getBridgeSecretHash } from "~/models/door.server";
import {
  clientIdOwner,
  DOOR_CODE_PATTERN,
  mayDoorPublish,
  mayDoorSubscribe,
  parseDoorTopic,
  sensorIdOfUsername,
  sensorTopic,
  sensorUsername,
} from "~/doors/contract";
import { verifyMosquittoPassword } from "~/utils/mosquitto-password.server";
import { logValue } from "~/utils/log-value";

/** Outside the doorId alphabet, so no door can ever log in as the app. */
export const APP_USERNAME = "coliving.app";

export type EmbeddedBrokerOptions = {
  host: string;
  port: number;
  /** Both set: also listen for MQTT over TLS on tlsPort. PEM file paths. */
  tlsCert?: string;
  tlsKey?: string;
  tlsPort?: number;
  prefix: string;
  appPassword: string;
};

export type EmbeddedBroker = {
  port: number;
  tlsPort: number | null;
  /** The connected bridge's IP address, or null. */
  addressOf(doorCode: string): string | null;
  /** Drops the bridges of these doors whose credential changed (rotation) or whose door is gone. */
  revalidateDoors(doorCodes: string[]): Promise<void>;
  /** Lets doors in: called once the access service's client has subscribed (before, doors get "Server unavailable"). */
  openToDoors(): void;
  close(): Promise<void>;
};

type Identity =
  | { kind: "app" }
  | { kind: "door"; doorCode: string; secretHash: string }
  | { kind: "sensor"; sensorId: string };

const accountOf = (identity: Identity) =>
  identity.kind === "app" ? APP_USERNAME : identity.kind === "door" ? identity.doorCode : sensorUsername(identity.sensorId);

/**
 * Largest packet a door (or a client not yet logged in) may send: every
 * message of docs/mqtt.md a door sends is a few hundred bytes. A bigger one
 * disconnects the sender as soon as its fixed header arrives, before its body
 * is buffered. The app's own account has no limit (it publishes the offline lists).
 */
export const MAX_DOOR_PACKET_BYTES = 4096;

// MQTT 3.1.1 CONNACK return codes.
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

function refusal(returnCode: number, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

function sameSecret(a: string, b: string) {
  const left = crypto.createHash("sha256").update(a).digest();
  const right = crypto.createHash("sha256").update(b).digest();
  return crypto.timingSafeEqual(left, right);
}

function listen(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Follows the MQTT framing of a byte stream (fixed header: type byte, then the
 * remaining length in 1-4 bytes of 7 bits) and tells the size of each packet
 * as soon as its header is read.
 */
export class PacketSizeTracker {
  private state: "type" | "length" | "body" = "type";
  private length = 0;
  private multiplier = 1;
  private headerBytes = 0;
  private bodyLeft = 0;

  /** Feeds a chunk; returns the size of the first packet over `limit` whose header it completes, else null. */
  push(chunk: Buffer, limit: () => number): number | null {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === "body") {
        const skipped = Math.min(this.bodyLeft, chunk.length - i);
        this.bodyLeft -= skipped;
        i += skipped;
        if (this.bodyLeft === 0) this.state = "type";
        continue;
      }
      const byte = chunk[i++]!;
      if (this.state === "type") {
        this.state = "length";
        this.length = 0;
        this.multiplier = 1;
        this.headerBytes = 1;
        continue;
      }
      this.length += (byte & 0x7f) * this.multiplier;
      this.multiplier *= 128;
      this.headerBytes += 1;
      if (byte & 0x80 && this.headerBytes < 5) continue;
      const size = this.headerBytes + this.length;
      if (size > limit()) return size;
      this.bodyLeft = this.length;
      this.state = this.bodyLeft > 0 ? "body" : "type";
    }
    return null;
  }
}

export async function startEmbeddedBroker(options: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const identities = new WeakMap<Client, Identity>();
  const doorClients = new Map<string, Set<Client>>();
  // Client id → the account that first used it, for ids no rule gives to an
  // account: a kept session (clean: false) and the messages queued for it
  // belong to that account only. Sessions live in this broker's memory, and so
  // does this map.
  const clientIdOwners = new Map<string, string>();
  let doorsOpen = false;

  const aedes = await Aedes.createBroker({
    // A bridge that stops reading must not stall deliveries to everyone else.
    drainTimeout: 10_000,
  });
  const connectedClients = () => (aedes as unknown as { clients: Record<string, Client> }).clients;

  aedes.authenticate = (client, username, password, done) => {
    const secret = password?.toString("utf8");
    if (!username || secret === undefined) {
      done(refusal(NOT_AUTHORIZED, "anonymous clients are not allowed"), false);
      return;
    }
    const accept = (identity: Identity) => {
      if (identity.kind !== "app" && !doorsOpen) {
        // The access service is not subscribed yet: what the door sent now would be acknowledged and lost.
        done(refusal(SERVER_UNAVAILABLE, "the access service is starting"), false);
        return;
      }
      // A door's or a sensor's own client id is only ever its own, so no other
      // account can hold it and lock it out (a door's bridge uses
      // coliving-bridge-<doorId>, a predictable id). Any other id used by
      // another account (connected or not: its session is kept) is refused
      // rather than taken over.
      const account = accountOf(identity);
      const ruled = clientIdOwner(client.id);
      if (ruled !== null) {
        if (ruled !== account) {
          done(refusal(IDENTIFIER_REJECTED, `client id ${client.id} belongs to another account`), false);
          return;
        }
      } else {
        const holder = connectedClients()[client.id];
        const held = holder ? identities.get(holder) : undefined;
        const owner = clientIdOwners.get(client.id) ?? (held ? accountOf(held) : undefined);
        if (owner !== undefined && owner !== account) {
          done(refusal(IDENTIFIER_REJECTED, `client id ${client.id} belongs to another account`), false);
          return;
        }
        clientIdOwners.set(client.id, account);
      }
      identities.set(client, identity);
      done(null, true);
    };
    if (username === APP_USERNAME) {
      if (sameSecret(secret, options.appPassword)) accept({ kind: "app" });
      else done(refusal(BAD_USERNAME_OR_PASSWORD, "bad username or password"), false);
      return;
    }
    const sensorId = sensorIdOfUsername(username);
    if (!sensorId && !DOOR_CODE_PATTERN.test(username)) {
      done(refusal(BAD_USERNAME_OR_PASSWORD, "bad username or password"), false);
      return;
    }
    (sensorId ? getSensorSecretHash(sensorId) : getBridgeSecretHash(username)).then(
      (secretHash) => {
        if (secretHash && verifyMosquittoPassword(secret, secretHash)) {
          accept(sensorId ? { kind: "sensor", sensorId } : { kind: "door", doorCode: username, secretHash });
        } else {
          done(refusal(BAD_USERNAME_OR_PASSWORD, "bad username or password"), false);
        }
      },
      (error: unknown) => {
        console.error("[access] broker: credential lookup failed", error);
        done(refusal(3, "server unavailable"), false);
      },
    );
  };

  aedes.authorizePublish = (client, packet, callback) => {
    const identity = client ? identities.get(client) : undefined;
    if (identity?.kind === "app") return callback(null);
    if (identity?.kind === "door" && mayDoorPublish(options.prefix, identity.doorCode, packet.topic)) {
      // Swipes and events are requests, never state: a retained one would be replayed.
      if (parseDoorTopic(options.prefix, packet.topic)?.kind !== "state") packet.retain = false;
      return callback(null);
    }
    if (identity?.kind === "sensor" && packet.topic === sensorTopic(options.prefix, identity.sensorId)) {
      packet.retain = false;
      return callback(null);
    }
    // aedes closes the connection of a client that publishes where it may not.
    callback(new Error(`not authorised to publish to ${packet.topic}`));
  };

  aedes.authorizeSubscribe = (client, subscription, callback) => {
    const identity = identities.get(client);
    const allowed =
      identity?.kind === "app" ||
      (identity?.kind === "door" && mayDoorSubscribe(options.prefix, identity.doorCode, subscription.topic));
    // null refuses this subscription (SUBACK 0x80) and keeps the connection.
    callback(null, allowed ? subscription : null);
  };

  // Also checked on every delivery, queued ones included: a door only ever
  // receives its own topics.
  aedes.authorizeForward = (client, packet) => {
    const identity = identities.get(client);
    if (identity?.kind === "app") return packet;
    if (identity?.kind === "door" && mayDoorSubscribe(options.prefix, identity.doorCode, packet.topic)) return packet;
    return undefined;
  };

  // aedes finishes a publish synchronously when nothing waits on I/O and then
  // reads the client's next packets from within the same call; with a deep
  // socket backlog (a starved process) that recursion overflowed the stack in
  // the benchmark. Finishing each publish on the next tick unwinds it.
  aedes.published = (_packet, _client, done) => process.nextTick(done);

  aedes.on("client", (client) => {
    const identity = identities.get(client);
    if (identity?.kind !== "door") return;
    const clients = doorClients.get(identity.doorCode) ?? new Set();
    clients.add(client);
    doorClients.set(identity.doorCode, clients);
  });
  aedes.on("clientDisconnect", (client) => {
    const identity = identities.get(client);
    if (identity?.kind !== "door") return;
    doorClients.get(identity.doorCode)?.delete(client);
  });
  aedes.on("clientError", (client, error) => {
    const identity = identities.get(client);
    const who = identity?.kind === "door" ? `door ${identity.doorCode}` : identity?.kind === "sensor" ? accountOf(identity) : `client ${logValue(client.id ?? "")}`;
    console.warn(`[access] broker: ${who}: ${error.message}`);
  });

  /** aedes reads the socket with read(); a 'data' listener sees each chunk before aedes parses it. */
  const handle = (socket: net.Socket) => {
    const client = aedes.handle(socket);
    const tracker = new PacketSizeTracker();
    // Doors, sensors and clients not logged in yet; the app has no limit.
    const limit = () => (identities.get(client)?.kind === "app" ? Infinity : MAX_DOOR_PACKET_BYTES);
    const guard = (chunk: Buffer) => {
      const size = tracker.push(chunk, limit);
      if (size === null) return;
      socket.off("data", guard);
      const identity = identities.get(client);
      const who = identity && identity.kind !== "app" ? accountOf(identity) : `client ${logValue(client.id ?? "(not logged in)")}`;
      console.warn(`[access] broker: ${who} sent a packet of ${size} bytes (limit ${MAX_DOOR_PACKET_BYTES}): disconnected`);
      socket.destroy();
    };
    socket.on("data", guard);
  };

  const servers: net.Server[] = [];
  const tcp = net.createServer({ noDelay: true }, handle);
  servers.push(tcp);
  const port = await listen(tcp, options.port, options.host);
  let tlsPort: number | null = null;
  if (options.tlsCert && options.tlsKey) {
    const secure = tls.createServer(
      { cert: fs.readFileSync(options.tlsCert), key: fs.readFileSync(options.tlsKey), noDelay: true },
      handle,
    );
    servers.push(secure);
    tlsPort = await listen(secure, options.tlsPort ?? 8883, options.host);
  }

  return {
    port,
    tlsPort,
    addressOf(doorCode) {
      let address: string | undefined;
      for (const client of doorClients.get(doorCode) ?? []) {
        address = (client.conn as Partial<net.Socket>).remoteAddress ?? address;
      }
      return address ? address.replace(/^::ffff:/, "") : null;
    },
    async revalidateDoors(doorCodes) {
      for (const doorCode of doorCodes) {
        const clients = [...(doorClients.get(doorCode) ?? [])];
        if (clients.length === 0) continue;
        const currentHash = await getBridgeSecretHash(doorCode);
        for (const client of clients) {
          const identity = identities.get(client);
          if (identity?.kind === "door" && identity.secretHash !== currentHash) {
            console.info(`[access] broker: disconnecting door ${doorCode}: its credential was replaced or revoked`);
            client.close();
          }
        }
      }
    },
    openToDoors() {
      doorsOpen = true;
    },
    async close() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await Promise.all(servers.map(closeServer));
    },
  };
}
