// Topic names and the ACL a door's MQTT client gets.
import { describe, expect, it } from "vitest";
import { mayDoorPublish, mayDoorSubscribe, parseDoorTopic } from "./contract";

describe("topics and ACL", () => {
  it("parse door topics under the prefix only", () => {
    expect(parseDoorTopic("coliving", "coliving/doors/front-1/swipe")).toEqual({ doorCode: "front-1", kind: "swipe" });
    expect(parseDoorTopic("site/coliving", "site/coliving/doors/A/state")).toEqual({ doorCode: "A", kind: "state" });
    expect(parseDoorTopic("coliving", "coliving/doors/front-1/swipe/extra")).toBeNull();
    expect(parseDoorTopic("coliving", "coliving/doors/front-1/other")).toBeNull();
    expect(parseDoorTopic("coliving", "other/doors/front-1/swipe")).toBeNull();
  });

  it("let a door publish only its own swipe, state, events and contact", () => {
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/swipe")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/state")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/events")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/contact")).toBe(true);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/B/contact")).toBe(false);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/B/swipe")).toBe(false);
    expect(mayDoorPublish("coliving", "A", "coliving/doors/A/decision")).toBe(false);
    expect(mayDoorPublish("coliving", "A", "coliving/app/changes")).toBe(false);
  });

  it("let a door subscribe only to its own decision, display and credentials, without wildcards", () => {
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/decision")).toBe(true);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/credentials")).toBe(true);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/receipt")).toBe(true);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/B/receipt")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/B/decision")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/+/decision")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/#")).toBe(false);
    expect(mayDoorSubscribe("coliving", "A", "coliving/doors/A/swipe")).toBe(false);
  });
});
