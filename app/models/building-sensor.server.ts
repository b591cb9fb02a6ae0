// Building sensors' MQTT credentials (docs/mqtt.md, "Building sensors").
import { eq } from "drizzle-orm";
import { buildingSensors } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

/** Stores a sensor's new secret hash, creating the sensor when it is new. */
export async function setSensorSecretHash(sensorId: string, secretHash: string, issuedAt = new Date()) {
  await getDb()
    .insert(buildingSensors)
    .values({ id: createId(), sensorId, secretHash, secretIssuedAt: issuedAt })
    .onConflictDoUpdate({ target: buildingSensors.sensorId, set: { secretHash, secretIssuedAt: issuedAt } });
}

/** The stored hash of the sensor's secret, or null for an unknown sensor. */
export async function getSensorSecretHash(sensorId: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ hash: buildingSensors.secretHash })
    .from(buildingSensors)
    .where(eq(buildingSensors.sensorId, sensorId))
    .limit(1);
  return row?.hash ?? null;
}
