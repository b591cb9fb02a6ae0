import { afterEach, describe, expect, it, vi } from "vitest";
import { AccessEventBus } from "./events.server";

afterEach(() => vi.restoreAllMocks());

describe("the access service's event bus", () => {
  it("tells every listener of an event, in the order they subscribed, and no other event's", () => {
    const bus = new AccessEventBus();
    const heard: string[] = [];
    bus.on("granted", (doorCode) => heard.push(`first ${doorCode}`));
    bus.on("cardsDeactivated", (cardIds) => heard.push(`cards ${cardIds.join(",")}`));
    bus.on("granted", (doorCode, at) => heard.push(`second ${doorCode} ${at.toISOString()}`));
    bus.emit("granted", "front", new Date("2026-03-01T09:00:00.000Z"));
    expect(heard).toEqual(["first front", "second front 2026-03-01T09:00:00.000Z"]);
  });

  it("logs a listener that throws, and the others still hear the event", () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const bus = new AccessEventBus();
    const heard: string[][] = [];
    bus.on("cardsDeactivated", () => {
      throw new Error("boom");
    });
    bus.on("cardsDeactivated", (cardIds) => heard.push(cardIds));
    bus.emit("cardsDeactivated", ["c1"]);
    expect(heard).toEqual([["c1"]]);
    expect(logged).toHaveBeenCalledWith("[access] a listener of cardsDeactivated failed", expect.any(Error));
  });

  it("is quiet for an event nobody listens to", () => {
    expect(() => new AccessEventBus().emit("doorModeChanged", "front", { mode: "locked" })).not.toThrow();
  });
});
