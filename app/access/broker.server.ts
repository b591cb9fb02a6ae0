// The embedded MQTT broker (aedes, MQTT 3.1.1), used when MQTT_URL is unset.
// No anonymous clients: each door's bridge logs in with its doorId and its
// secret (checked against the stored Mosquitto-format hash), the app with an
// internal account whose password lives only in this process. A door may use
// only its own topics (contract.ts); the app may do everything.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { getBridgeSecretHash } from "~/models/door.server";
import { DOOR_CODE_PATTERN, mayDoorPublish, mayDoorSubscribe, parseDoorTopic } from "./contract";
import { verifyMosquittoPassword } from "./mosquitto-password.server";

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
  close(): Promise<void>;
};

type Identity = { kind: "app" } | { kind: "door"; doorCode: string; secretHash: string };

const accountOf = (identity: Identity) => (identity.kind === "app" ? APP_USERNAME : identity.doorCode);

// MQTT 3.1.1 CONNACK return codes.
const IDENTIFIER_REJECTED = 2;
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

export async function startEmbeddedBroker(options: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const identities = new WeakMap<Client, Identity>();
  const doorClients = new Map<string, Set<Client>>();

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
      // A client id in use by another account is refused rather than taken over.
      const holder = connectedClients()[client.id];
      const held = holder ? identities.get(holder) : undefined;
      if (held && accountOf(held) !== accountOf(identity)) {
        done(refusal(IDENTIFIER_REJECTED, `client id ${client.id} is in use`), false);
        return;
      }
      identities.set(client, identity);
      done(null, true);
    };
    if (username === APP_USERNAME) {
      if (sameSecret(secret, options.appPassword)) accept({ kind: "app" });
      else done(refusal(BAD_USERNAME_OR_PASSWORD, "bad username or password"), false);
      return;
    }
    if (!DOOR_CODE_PATTERN.test(username)) {
      done(refusal(BAD_USERNAME_OR_PASSWORD, "bad username or password"), false);
      return;
    }
    getBridgeSecretHash(username).then(
      (secretHash) => {
        if (secretHash && verifyMosquittoPassword(secret, secretHash)) {
          accept({ kind: "door", doorCode: username, secretHash });
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
    const who = identity?.kind === "door" ? `door ${identity.doorCode}` : (client.id ?? "client");
    console.warn(`[access] broker: ${who}: ${error.message}`);
  });

  const servers: net.Server[] = [];
  const tcp = net.createServer({ noDelay: true }, aedes.handle);
  servers.push(tcp);
  const port = await listen(tcp, options.port, options.host);
  let tlsPort: number | null = null;
  if (options.tlsCert && options.tlsKey) {
    const secure = tls.createServer(
      { cert: fs.readFileSync(options.tlsCert), key: fs.readFileSync(options.tlsKey), noDelay: true },
      aedes.handle,
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
    async close() {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await Promise.all(servers.map(closeServer));
    },
  };
}
