// The embedded broker's packet-size check reads MQTT fixed headers across chunk boundaries.
import { describe, expect, it } from "vitest";
import { PacketSizeTracker } from "./broker.server";

/** A fixed header: type byte, then the remaining length in MQTT's variable-length encoding. */
function header(remaining: number) {
  const bytes = [0x32];
  do {
    let byte = remaining % 128;
    remaining = Math.floor(remaining / 128);
    if (remaining > 0) byte |= 0x80;
    bytes.push(byte);
  } while (remaining > 0);
  return Buffer.from(bytes);
}

describe("PacketSizeTracker", () => {
  const limit = () => 4096;

  it("lets packets under the limit through, one after another in one chunk", () => {
    const tracker = new PacketSizeTracker();
    const packets = [100, 0, 4093].map((size) => Buffer.concat([header(size), Buffer.alloc(size)]));
    expect(tracker.push(Buffer.concat(packets), limit)).toBeNull();
  });

  it("tells the size of a packet over the limit as soon as its header is complete, whatever the chunks", () => {
    const tracker = new PacketSizeTracker();
    expect(tracker.push(Buffer.concat([header(10), Buffer.alloc(10)]), limit)).toBeNull();
    const big = header(1024 * 1024);
    expect(tracker.push(big.subarray(0, 2), limit)).toBeNull();
    expect(tracker.push(big.subarray(2), limit)).toBe(1024 * 1024 + big.length);
  });

  it("follows a body split over many chunks", () => {
    const tracker = new PacketSizeTracker();
    const stream = Buffer.concat([header(3000), Buffer.alloc(3000), header(5000)]);
    for (let i = 0; i < stream.length - 3; i += 7) expect(tracker.push(stream.subarray(i, Math.min(i + 7, stream.length - 3)), limit)).toBeNull();
    expect(tracker.push(stream.subarray(stream.length - 3), limit)).toBe(5003);
  });
});
