// The client's address. remix-serve gives the app no socket, so the boot
// module copies the socket's address into PEER_IP_HEADER on every incoming
// request (see installPeerAddressHeader), overwriting whatever a client sent.
import type { IncomingMessage, Server } from "node:http";
import http from "node:http";

export const PEER_IP_HEADER = "x-coliving-peer-ip";

export function installPeerAddressHeader() {
  const marker = Symbol.for("coliving.peerAddressHeader");
  const proto = http.Server.prototype as Server & { [key: symbol]: boolean };
  if (proto[marker]) return;
  proto[marker] = true;
  const emit = proto.emit;
  proto.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as IncomingMessage;
      req.headers[PEER_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof proto.emit;
}

export function getClientIp(request: Request): string {
  if (process.env.TRUST_PROXY === "true") {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return request.headers.get(PEER_IP_HEADER) ?? "unknown";
}
