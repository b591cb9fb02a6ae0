// A recorder that never stops, for tests that kill it (kill -9) mid-write:
// it records batches of swipes and offline events through the access
// service's recording transaction (recordAccessBatch) until it is killed,
// telling its parent (IPC) how many batches are committed.
import { randomUUID } from "node:crypto";
import { recordAccessBatch, type AccessInput } from "~/access/record-batch.server";

const doorCodes = (process.env.RECORD_LOOP_DOORS ?? "").split(",");
const cardNumbers = (process.env.RECORD_LOOP_CARDS ?? "").split(",");
const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;

let committed = 0;
let at = Date.now() - 5 * 24 * 3600_000;
while (true) {
  const items: AccessInput[] = Array.from({ length: 40 }, (_, i): AccessInput => {
    const doorCode = pick(doorCodes);
    const cardNumber = pick(cardNumbers);
    if (i % 5 === 0) {
      const granted = Math.random() < 0.5;
      return { kind: "event", id: randomUUID(), doorCode, cardNumber, at: new Date(at - 3600_000), granted, reason: granted ? "granted" : "offline_deny", offline: true, ipAddress: null };
    }
    return { kind: "swipe", id: randomUUID(), doorCode, cardNumber, rawCard: cardNumber, source: "reader", ipAddress: null };
  });
  at += 97_000;
  await recordAccessBatch(items, new Date(at));
  process.send?.({ committed: ++committed });
}
