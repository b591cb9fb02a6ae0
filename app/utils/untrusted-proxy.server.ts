// Behind a reverse proxy with TRUST_PROXY off (the default), every client
// behind the proxy has the proxy's address: one person's failed sign-ins lock
// everybody out. The HTTP edge hands each request's X-Forwarded-For here; the
// first one seen while TRUST_PROXY is off is said once in the log, and the
// admin dashboard shows a warning from then on (until a restart with the
// setting fixed).
import { getEnv } from "./env.server";

let firstSeenAt: Date | null = null;

export const UNTRUSTED_PROXY_LOG =
  "[web] requests carry X-Forwarded-For but TRUST_PROXY is off: every client behind the proxy shares the proxy's address " +
  "(sign-in limits included). Set TRUST_PROXY to the number of proxies in front of the app (e.g. TRUST_PROXY=1).";

/** Notes a request's X-Forwarded-For header (undefined when it has none). */
export function noteForwardedFor(header: string | undefined) {
  if (firstSeenAt || !header?.trim() || getEnv().TRUST_PROXY > 0) return;
  firstSeenAt = new Date();
  console.warn(UNTRUSTED_PROXY_LOG);
}

/** When a request first carried X-Forwarded-For with TRUST_PROXY off in this process; null if none has (or it is on). */
export function untrustedProxySeenAt(): Date | null {
  return firstSeenAt && getEnv().TRUST_PROXY === 0 ? firstSeenAt : null;
}

export function resetUntrustedProxyForTests() {
  firstSeenAt = null;
}
