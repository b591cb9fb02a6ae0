// The body of `npm run bench:audit` (scripts/bench-audit.mjs): the cost of the
// audit event on an admin change, and proof that a card swipe writes none.
import { performance } from "node:perf_hooks";
import { startAccessService } from "~/access/service.server";
import { useAccessNotifier } from "~/access/notify.server";
import { countAuditEvents } from "~/models/audit-event.server";
import * as cardModel from "~/models/card.server";
import * as doorModel from "~/models/door.server";
import { audited } from "~/services/audit.server";
import { editCard, setCardPermission } from "~/services/cards.server";
import { provisionDoor, updateDoor } from "~/services/doors.server";
import { getDb, migrateDatabase } from "~/utils/db.server";
import { FakeBridge } from "../tests/setup/access";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const summary = (values: number[]) => ({ n: values.length, p50: +percentile(values, 50).toFixed(2), p95: +percentile(values, 95).toFixed(2) });

async function time(work: () => Promise<unknown>) {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export async function benchAudit({ requests, warmup, events, swipes }: { requests: number; warmup: number; events: number; swipes: number }) {
  await migrateDatabase(getDb());

  // A trail of a realistic size, so the chain's head is read from a big table.
  console.info(`[bench] seeding ${events} audit events`);
  for (let done = 0; done < events; done += 500) {
    await audited(async (audit) => {
      for (let i = 0; i < Math.min(500, events - done); i += 1) {
        audit({ action: "door.update", entityType: "door", entityId: `seed-${done + i}`, summary: `editó la puerta ${done + i}`, before: { name: "A" }, after: { name: "B" } });
      }
    });
  }

  const { door, credential } = await provisionDoor("bench-audit-door", { name: "Gimnasio", location: "Sótano" });
  const cards = [];
  for (let i = 0; i < 20; i += 1) {
    const card = await cardModel.registerCard({ cardNumber: `BE${String(i).padStart(6, "0")}`, status: "active" });
    await setCardPermission(card.id, door.id, true);
    cards.push(card);
  }

  // An admin's change, one at a time: the card's alias and the door's name,
  // raw (what the service wrote before the audit trail: read, then one
  // autocommit update) and through the service (read, update and event in one
  // IMMEDIATE transaction). Alternated, so both see the same machine.
  const raw = { card: [] as number[], door: [] as number[] };
  const withAudit = { card: [] as number[], door: [] as number[] };
  for (let round = 0; round < warmup + requests; round += 1) {
    const card = cards[round % cards.length]!;
    const rawCard = await time(async () => {
      await cardModel.getCardRow(card.id);
      await cardModel.updateCard(card.id, { alias: `raw ${round}` });
    });
    const auditedCard = await time(() => editCard(card.id, { alias: `audit ${round}` }));
    const rawDoor = await time(async () => {
      await doorModel.getDoorById(door.id);
      await doorModel.updateDoor(door.id, { name: `Gimnasio raw ${round}` });
    });
    const auditedDoor = await time(() => updateDoor(door.id, { name: `Gimnasio ${round}` }));
    if (round < warmup) continue;
    raw.card.push(rawCard);
    withAudit.card.push(auditedCard);
    raw.door.push(rawDoor);
    withAudit.door.push(auditedDoor);
  }

  // Card swipes through the real access service: decided and logged, and the
  // audit trail does not grow.
  const service = await startAccessService({ host: "127.0.0.1", port: 0, refreshIntervalMs: 60_000 });
  useAccessNotifier(service.notifier);
  const bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${service.mqttPort}`, door.code, credential.password);
  const before = await countAuditEvents({});
  const swipeTimes: number[] = [];
  let granted = 0;
  for (let i = 0; i < swipes; i += 1) {
    const start = performance.now();
    const decision = await bridge.swipe(cards[i % cards.length]!.cardNumber);
    swipeTimes.push(performance.now() - start);
    if (decision.granted) granted += 1;
  }
  const after = await countAuditEvents({});
  await bridge.end();
  await service.stop();

  return {
    events,
    adminChange: {
      cardAlias: { raw: summary(raw.card), audited: summary(withAudit.card) },
      doorName: { raw: summary(raw.door), audited: summary(withAudit.door) },
    },
    swipes: { n: swipes, granted, decision: summary(swipeTimes), auditEventsWritten: after - before },
  };
}
