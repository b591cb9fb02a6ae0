import { getEnv } from "./env.server";
import { currentRequestContext, PEER_IP_HEADER } from "./request-context.server";

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * One form for an address: an IPv4 address as itself, not in the IPv4-mapped
 * IPv6 form a dual-stack socket reports ("::ffff:127.0.0.1" is "127.0.0.1").
 */
export function plainIpAddress(address: string): string;
export function plainIpAddress(address: string | null): string | null;
export function plainIpAddress(address: string | null) {
  return address === null ? null : (IPV4_MAPPED.exec(address.trim())?.[1] ?? address.trim());
}

/**
 * The client's address (an IPv4 one in its plain form). Behind TRUST_PROXY proxies, it is the address the
 * nearest trusted proxy saw: each proxy appends the address it received from
 * to X-Forwarded-For, so with n proxies it is the n-th entry from the right.
 * Entries further left were written by the client and are never trusted.
 */
export function getClientIp(request: Request): string {
  const proxies = getEnv().TRUST_PROXY;
  if (proxies > 0) {
    const forwarded = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    const fromProxy = forwarded[forwarded.length - proxies];
    if (fromProxy) return plainIpAddress(fromProxy);
  }
  return plainIpAddress(request.headers.get(PEER_IP_HEADER) ?? "unknown");
}

/** Whether the browser reached us over HTTPS: PUBLIC_URL says so, or a trusted proxy does. */
export function isSecureRequest(request: Request): boolean {
  return isSecure(request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() ?? null);
}

function isSecure(forwardedProto: string | null) {
  if (getEnv().PUBLIC_URL.startsWith("https:")) return true;
  return getEnv().TRUST_PROXY > 0 && forwardedProto === "https";
}

/** Cookie options for the response being made: Secure whenever the browser came over HTTPS. */
export function cookieSecurity() {
  return { secure: isSecure(currentRequestContext()?.forwardedProto ?? null) };
}
