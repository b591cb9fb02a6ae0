import { getEnv } from "./env.server";
import { PEER_IP_HEADER } from "./http-server-patch.server";

/** The client's address: the socket's, or with TRUST_PROXY the one the proxy reports. */
export function getClientIp(request: Request): string {
  if (getEnv().TRUST_PROXY) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return request.headers.get(PEER_IP_HEADER) ?? "unknown";
}
