// The portal's periodic jobs (scheduled by app/boot.server.ts): card
// expiry warnings, once per card and expiry date, and the purge of sensor
// readings older than 30 days.
import { describe, expect, it } from "vitest";
import { getLatestBuildingReading, insertBuildingReading } from "~/models/building-reading.server";
import { assignCardToUser, updateCard } from "~/models/card.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import { sendCardExpiryWarnings } from "~/services/notifications.server";
import { runPeriodicJobs } from "~/boot.server";
import { formatDate } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { createTestResident, hexPrefix } from "../setup/fixtures";

const DAY = 24 * 3600_000;

describe("card expiry warnings", () => {
  it("warns the holder 7 days ahead, once per card and expiry; a new expiry warns again", async () => {
    const resident = await createTestResident();
    const now = new Date();
    const soon = new Date(now.getTime() + 3 * DAY + 3600_000);
    const { card } = await assignCardToUser(resident.id, { cardNumber: `${hexPrefix()}01`, alias: "Llavero", expiresAt: soon });
    await assignCardToUser(resident.id, { cardNumber: `${hexPrefix()}02`, expiresAt: new Date(now.getTime() + 8 * DAY) });

    await sendCardExpiryWarnings(now);
    await sendCardExpiryWarnings(new Date(now.getTime() + 60_000));
    const warnings = await listNotificationsOfUser(resident.id);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ type: "card", title: "Tarjeta próxima a expirar" });
    expect(warnings[0]?.message).toBe(
      `Tu tarjeta Llavero (${card.cardNumber}) expira el ${formatDate(soon)} (en 4 días). Contacta con la administración para renovarla.`,
    );

    await updateCard(card.id, { expiresAt: new Date(soon.getTime() + DAY) });
    await sendCardExpiryWarnings(now);
    expect(await listNotificationsOfUser(resident.id)).toHaveLength(2);
  });

  it("warns nobody for inactive or unassigned cards, and is safe to run from several processes at once", async () => {
    const resident = await createTestResident();
    const now = new Date();
    const { card } = await assignCardToUser(resident.id, { cardNumber: `${hexPrefix()}03`, expiresAt: new Date(now.getTime() + 2 * DAY) });
    await updateCard(card.id, { status: "inactive" });
    await sendCardExpiryWarnings(now);
    expect(await listNotificationsOfUser(resident.id)).toHaveLength(0);
    await updateCard(card.id, { status: "active" });
    await Promise.all([sendCardExpiryWarnings(now), sendCardExpiryWarnings(now), runPeriodicJobs(now)]);
    expect(await listNotificationsOfUser(resident.id)).toHaveLength(1);
  });
});

describe("sensor readings", () => {
  it("are purged after 30 days by the periodic jobs", async () => {
    const now = Date.now();
    await insertBuildingReading({ temperature: 10, humidity: 10, wifiStatus: "Conectado", recordedAt: new Date(now - 31 * DAY) });
    const kept = await insertBuildingReading({ temperature: 21, humidity: 40, wifiStatus: "Conectado", recordedAt: new Date(now - 29 * DAY) });
    await runPeriodicJobs(new Date(now));
    const rows = await getDb().$client.execute("SELECT id FROM building_readings");
    expect(rows.rows.map((row) => row.id)).toEqual([kept.id]);
    expect((await getLatestBuildingReading())?.id).toBe(kept.id);
  });
});
