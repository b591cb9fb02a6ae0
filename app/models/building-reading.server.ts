// What the building's sensor last measured (temperature, humidity, WiFi),
// written by the access service (at most one reading per sensor every few
// seconds, inside its batches' transactions: insertBuildingReadings) as the
// sensor publishes over MQTT (docs/mqtt.md), and read by the residents' portal. Readings older than 30
// days are purged at boot's periodic purge.
import { desc, lt } from "drizzle-orm";
import { buildingReadings, type BuildingReading } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, type Database } from "~/utils/db.server";

export type { BuildingReading };

export type NewBuildingReading = {
  temperature: number;
  humidity: number;
  wifiStatus: string;
  recordedAt: Date;
};

export async function insertBuildingReading(reading: NewBuildingReading) {
  const [row] = await getDb()
    .insert(buildingReadings)
    .values({ id: createId(), ...reading })
    .returning();
  return row!;
}

/** Several readings in one statement, on the connection or inside a transaction (the access service's batches). */
export async function insertBuildingReadings(readings: NewBuildingReading[], db: Pick<Database, "insert"> = getDb()) {
  if (readings.length === 0) return;
  await db.insert(buildingReadings).values(readings.map((reading) => ({ id: createId(), ...reading })));
}

/** The most recent reading (by the time it was measured), or undefined when there is none. */
export async function getLatestBuildingReading() {
  const [row] = await getDb().select().from(buildingReadings).orderBy(desc(buildingReadings.recordedAt)).limit(1);
  return row;
}

/** Deletes the readings measured before `date`; answers how many. */
export async function purgeBuildingReadingsOlderThan(date: Date) {
  const deleted = await getDb().delete(buildingReadings).where(lt(buildingReadings.recordedAt, date)).returning({ id: buildingReadings.id });
  return deleted.length;
}
