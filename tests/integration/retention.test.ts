// Privacy: consultations (with their IP address) and closed public fault
// reports older than RETENTION_MONTHS are deleted by the daily purge, which
// is idempotent; the privacy page states the period.
import { afterEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { incidents } from "~/db/schema";
import { getConsultationById } from "~/models/consultation.server";
import { getIncidentById } from "~/models/incident.server";
import * as privacyPage from "~/routes/privacidad";
import { purgeRetainedData } from "~/boot.server";
import { monthsBefore } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { createTestConsultation, createTestPublicIncident, createTestResidentIncident, createTestUser } from "../setup/fixtures";
import { callRoute } from "../setup/route";

const DAY_MS = 24 * 3600_000;
const NOW = new Date();

async function setIncident(id: string, fields: Partial<typeof incidents.$inferInsert>) {
  await getDb().update(incidents).set(fields).where(eq(incidents.id, id));
}

afterEach(() => {
  delete process.env.RETENTION_MONTHS;
  delete process.env.ACCESS_LOG_RETENTION_MONTHS;
  delete process.env.AUDIT_RETENTION_MONTHS;
  resetEnvForTests();
});

describe("retention purge", () => {
  it("deletes consultations and closed public reports past 12 months by default, and nothing else", async () => {
    const cutoff = monthsBefore(NOW, 12).getTime();
    const old = await createTestConsultation({ createdAt: cutoff - DAY_MS, ipAddress: "198.51.100.1" });
    const recent = await createTestConsultation({ createdAt: cutoff + DAY_MS });

    const closedOld = await createTestPublicIncident();
    await setIncident(closedOld.id, { status: "closed", updatedAt: new Date(cutoff - DAY_MS) });
    const closedRecently = await createTestPublicIncident();
    await setIncident(closedRecently.id, { status: "closed", updatedAt: new Date(cutoff + DAY_MS) });
    const openOld = await createTestPublicIncident();
    await setIncident(openOld.id, { status: "resolved", updatedAt: new Date(cutoff - DAY_MS) });
    const resident = await createTestUser();
    const residentsOld = await createTestResidentIncident(resident);
    await setIncident(residentsOld.id, { status: "closed", updatedAt: new Date(cutoff - DAY_MS) });

    expect(await purgeRetainedData(NOW)).toEqual({ consultations: 1, incidents: 1 });
    expect(await getConsultationById(old.id)).toBeUndefined();
    expect(await getConsultationById(recent.id)).toBeDefined();
    expect(await getIncidentById(closedOld.id)).toBeNull();
    for (const kept of [closedRecently, openOld, residentsOld]) expect(await getIncidentById(kept.id)).not.toBeNull();

    // Idempotent: a second run (another process, a restart) finds nothing more.
    expect(await purgeRetainedData(NOW)).toEqual({ consultations: 0, incidents: 0 });
  });

  it("follows RETENTION_MONTHS", async () => {
    process.env.RETENTION_MONTHS = "3";
    resetEnvForTests();
    const fourMonths = await createTestConsultation({ createdAt: monthsBefore(NOW, 4).getTime() });
    const twoMonths = await createTestConsultation({ createdAt: monthsBefore(NOW, 2).getTime() });
    await purgeRetainedData(NOW);
    expect(await getConsultationById(fourMonths.id)).toBeUndefined();
    expect(await getConsultationById(twoMonths.id)).toBeDefined();
  });

  it("the privacy page states the period", async () => {
    const byDefault = await (await callRoute(privacyPage.loader, new Request("http://localhost/privacidad"))).json();
    expect(byDefault).toEqual({ retentionMonths: 12, accessLogMonths: null, auditMonths: 24 });
    process.env.RETENTION_MONTHS = "6";
    process.env.ACCESS_LOG_RETENTION_MONTHS = "18";
    process.env.AUDIT_RETENTION_MONTHS = "36";
    resetEnvForTests();
    expect(await (await callRoute(privacyPage.loader, new Request("http://localhost/privacidad"))).json()).toEqual({
      retentionMonths: 6,
      accessLogMonths: 18,
      auditMonths: 36,
    });
  });
});
