import { getEnv } from "./env.server";
import { currentRequestContext, PEER_IP_HEADER } from "./http-server-patch.server";

/**
 * The client's address. Behind TRUST_PROXY proxies, it is the address the
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
    if (fromProxy) return fromProxy;
  }
  return request.headers.get(PEER_IP_HEADER) ?? "unknown";
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
