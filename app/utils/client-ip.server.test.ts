import { afterEach, describe, expect, it } from "vitest";
import { getClientIp, isSecureRequest, plainIpAddress } from "./client-ip.server";
import { resetEnvForTests } from "./env.server";
import { PEER_IP_HEADER } from "./request-context.server";

function request(headers: Record<string, string>) {
  return new Request("http://x/", { headers: { [PEER_IP_HEADER]: "10.0.0.1", ...headers } });
}

function withTrustProxy(value: string | undefined) {
  if (value === undefined) delete process.env.TRUST_PROXY;
  else process.env.TRUST_PROXY = value;
  resetEnvForTests();
}

afterEach(() => withTrustProxy(undefined));

describe("getClientIp", () => {
  it("uses the socket's address unless proxies are trusted", () => {
    withTrustProxy(undefined);
    expect(getClientIp(request({ "X-Forwarded-For": "203.0.113.9" }))).toBe("10.0.0.1");
  });

  it("behind one proxy, takes the address it appended (the rightmost), not what the client wrote", () => {
    withTrustProxy("true");
    expect(getClientIp(request({ "X-Forwarded-For": "1.2.3.4, 203.0.113.9" }))).toBe("203.0.113.9");
    expect(getClientIp(request({ "X-Forwarded-For": "203.0.113.9" }))).toBe("203.0.113.9");
    expect(getClientIp(request({}))).toBe("10.0.0.1");
  });

  it("behind two proxies, the second entry from the right", () => {
    withTrustProxy("2");
    expect(getClientIp(request({ "X-Forwarded-For": "6.6.6.6, 203.0.113.9, 198.51.100.7" }))).toBe("203.0.113.9");
  });
});

describe("the address's form", () => {
  it("is the plain IPv4 address where it is one, from the socket or a proxy", () => {
    withTrustProxy(undefined);
    expect(getClientIp(request({ [PEER_IP_HEADER]: "::ffff:127.0.0.1" }))).toBe("127.0.0.1");
    withTrustProxy("true");
    expect(getClientIp(request({ "X-Forwarded-For": "::FFFF:203.0.113.9" }))).toBe("203.0.113.9");
    expect(plainIpAddress("2001:db8::1")).toBe("2001:db8::1");
    expect(plainIpAddress("::1")).toBe("::1");
    expect(plainIpAddress(null)).toBeNull();
  });
});

describe("isSecureRequest", () => {
  it("believes X-Forwarded-Proto only from trusted proxies", () => {
    withTrustProxy(undefined);
    expect(isSecureRequest(request({ "X-Forwarded-Proto": "https" }))).toBe(false);
    withTrustProxy("1");
    expect(isSecureRequest(request({ "X-Forwarded-Proto": "https" }))).toBe(true);
    expect(isSecureRequest(request({ "X-Forwarded-Proto": "http" }))).toBe(false);
  });
});
