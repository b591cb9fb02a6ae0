import type { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { crossSiteRefusal, declaredBodyRefusal, legacyDataRefusal, notePeerAddress, requestContextFor } from "./http-edge.server";
import { MAX_BODY_BYTES, MAX_UPLOAD_BODY_BYTES } from "./request-body.server";
import { PEER_IP_HEADER } from "./request-context.server";

function incoming(method: string, url: string, headers: Record<string, string> = {}) {
  const socket = new Socket();
  Object.defineProperty(socket, "remoteAddress", { value: "203.0.113.7" });
  return { method, url, headers: { host: "casa.example", ...headers }, socket } as unknown as IncomingMessage;
}

describe("the HTTP edge", () => {
  it("notes the socket's address over whatever the client sent", () => {
    const req = incoming("GET", "/", { [PEER_IP_HEADER]: "10.0.0.1" });
    notePeerAddress(req);
    expect(req.headers[PEER_IP_HEADER]).toBe("203.0.113.7");
  });

  it("gives each request its context: document or data, read-only or not, the forwarded protocol", () => {
    const page = requestContextFor(incoming("GET", "/admin?x=1", { "x-forwarded-proto": "HTTPS, http" }), {} as never);
    expect(page).toMatchObject({ rendersDocument: true, readOnly: true, forwardedProto: "https", toasts: [] });
    expect(requestContextFor(incoming("POST", "/admin/cards.data"), {} as never)).toMatchObject({ rendersDocument: false, readOnly: false, forwardedProto: null });
    expect(requestContextFor(incoming("GET", "/api/doors"), {} as never).rendersDocument).toBe(false);
  });

  it("refuses Remix's old data protocol, and only that", () => {
    expect(legacyDataRefusal("/admin?_data=routes%2Fadmin")?.status).toBe(400);
    expect(legacyDataRefusal("/admin?index&_data")?.status).toBe(400);
    expect(legacyDataRefusal("/admin?my_data=1")).toBeNull();
    expect(legacyDataRefusal("/admin.data")).toBeNull();
  });

  it("refuses a page's cross-site mutation, not the API's nor a same-origin one", () => {
    expect(crossSiteRefusal(incoming("POST", "/login", { origin: "https://evil.example" }), "/login")?.status).toBe(403);
    expect(crossSiteRefusal(incoming("POST", "/login", { "sec-fetch-site": "cross-site" }), "/login")?.status).toBe(403);
    expect(crossSiteRefusal(incoming("POST", "/login", { origin: "http://casa.example" }), "/login")).toBeNull();
    expect(crossSiteRefusal(incoming("GET", "/login", { origin: "https://evil.example" }), "/login")).toBeNull();
    expect(crossSiteRefusal(incoming("POST", "/api/cards", { origin: "https://evil.example" }), "/api/cards")).toBeNull();
  });

  it("refuses a body declared over the cap of its type", () => {
    expect(declaredBodyRefusal(incoming("POST", "/x", { "content-length": String(MAX_BODY_BYTES + 1) }))?.status).toBe(413);
    expect(declaredBodyRefusal(incoming("POST", "/x", { "content-length": String(MAX_BODY_BYTES) }))).toBeNull();
    const upload = { "content-type": "multipart/form-data; boundary=z", "content-length": String(MAX_BODY_BYTES + 1) };
    expect(declaredBodyRefusal(incoming("POST", "/x", upload))).toBeNull();
    expect(declaredBodyRefusal(incoming("POST", "/x", { ...upload, "content-length": String(MAX_UPLOAD_BODY_BYTES + 1) }))?.status).toBe(413);
  });
});
