// Issue 40, point 16: the portal's 'Información del Edificio' never shows a
// value nobody measured. With no sensor reading: 'Sin datos de sensores'. With
// one: its values and its age; older than 30 minutes, marked 'Dato antiguo'.
// The readings are the building's, not a user's: this file (its own database)
// owns the table, and its one test walks the states in order. The card is
// rendered from the page's own loader data.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { BuildingCard } from "~/components/portal/portal-cards";
import { insertBuildingReading } from "~/models/building-reading.server";
import * as page from "~/routes/portal";
import { createTestResident, sessionCookie } from "../setup/fixtures";
import { callRoute } from "../setup/route";

/** The building card as /portal renders it for this resident now. */
async function buildingCard(cookie: string) {
  const data = await (await callRoute(page.loader, new Request("http://localhost/portal", { headers: { Cookie: cookie } }))).json();
  return renderToStaticMarkup(createElement(BuildingCard, { building: data.building, now: data.now })).replace(/<[^>]+>/g, "");
}

describe("the portal's building card", () => {
  it("says there is no sensor data, then shows a reading with its age, stale past 30 minutes", async () => {
    const cookie = await sessionCookie((await createTestResident()).id);
    const none = await buildingCard(cookie);
    expect(none).toContain("Sin datos de sensores");
    expect(none).not.toMatch(/°C|WiFi/);

    await insertBuildingReading({ temperature: 18.5, humidity: 62, wifiStatus: "Conectado", recordedAt: new Date(Date.now() - 45 * 60_000) });
    const stale = await buildingCard(cookie);
    expect(stale).toContain("18,5 °C");
    expect(stale).toMatch(/\(hace 4[45] minutos\)/);
    expect(stale).toContain("Dato antiguo");

    await insertBuildingReading({ temperature: 21, humidity: 50, wifiStatus: "Sin conexión", recordedAt: new Date(Date.now() - 5 * 60_000) });
    const fresh = await buildingCard(cookie);
    expect(fresh).toContain("21 °C");
    expect(fresh).toContain("Sin conexión");
    expect(fresh).toMatch(/\(hace [45] minutos\)/);
    expect(fresh).not.toContain("Dato antiguo");
  });
});
