// Issue 40, point 2, as it was found: a resident's visitor pass kept opening
// the door after the resident was suspended, made inactive, or lost their card
// or their right to the door. Played by the door's account over MQTT (the real
// access service and its embedded broker, FakeBridge): online the pass is
// refused at once, the door's retained offline list drops it within 1 s, and
// both come back when the resident's right does; with access-group hours, the
// list's window is cut to them and online the pass follows them.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsMessage } from "~/doors/contract";
import { addUserToGroup, createAccessGroup, updateAccessGroup } from "~/services/access-groups.server";
import { editCard, removeCardPermission, setCardPermission } from "~/services/cards.server";
import { changeUserStatus } from "~/services/users.server";
import { createVisitorPass } from "~/services/visitor-passes.server";
import { addDays, madridInstant, todayInMadrid } from "~/utils/dates";
import { eventually } from "../../bridge/src/test-support/eventually";
import type { FakeBridge } from "../setup/access";
import { FakeDoorChain } from "../setup/door-chain";
import { createTestCard, hexPrefix } from "../setup/fixtures";

const chain = new FakeDoorChain("vpi");
const ADMIN = { id: "issue-40-admin" };

beforeAll(() => chain.start());
afterAll(() => chain.stop());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** The pass's QR entry on the door's latest offline list (its windows), or undefined. */
function listed(bridge: FakeBridge, token: string) {
  const list = bridge.latest("credentials")?.json as CredentialsMessage | undefined;
  return list?.keys.find((entry) => entry.k === "qr" && entry.h === sha256(`${list.salt}qr:${token}`));
}
/** Waits at most the 1 s for the list to carry the pass, or not. */
const listCarries = (bridge: FakeBridge, token: string, carries: boolean) =>
  eventually(() => Boolean(listed(bridge, token)) === carries, `the list ${carries ? "with" : "without"} the pass`, 1000);

/** Tomorrow's visit, 09:00–11:00; the app's clock is moved inside it for the online checks. */
const day = addDays(todayInMadrid(), 1);
const at = (time: string) => madridInstant(day, time)!;
const visit = { visitorName: "Bea", visitorEmail: "bea@example.com", date: day, startTime: "09:00", endTime: "11:00" };

describe("a visitor pass and its resident's right", () => {
  it("stops at once, online and in the offline list, when the resident is suspended, inactive, loses their card or their permission; and works again when the right comes back", async () => {
    const entrance = await chain.door("Portal V", { entrance: true });
    const { user, card } = await createTestCard(hexPrefix(4), [entrance.door.id], { firstName: "Carlos" });
    const created = await createVisitorPass(user!, { ...visit, doorIds: [entrance.door.code] });
    if (!created.ok) throw new Error(created.message);
    const { pass } = created;
    await listCarries(entrance.bridge, pass.qr, true);
    chain.clockOffsetMs = at("09:30").getTime() - Date.now();
    const opens = async (granted: boolean) => {
      const decision = await entrance.bridge.typePin(pass.pin);
      expect(decision).toMatchObject(granted ? { granted: true, reason: "granted" } : { granted: false, reason: "invalid_key" });
      // A refused PIN counts as a wrong one at the keypad: the next check comes after its pause.
      if (!granted) chain.clockOffsetMs += 20_000;
      expect(await entrance.bridge.scanQr(pass.qr)).toMatchObject({ granted });
    };
    try {
      await opens(true);
      const losses: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
        ["suspended", () => changeUserStatus(user!.id, "suspended", ADMIN), () => changeUserStatus(user!.id, "active", ADMIN)],
        ["inactive", () => changeUserStatus(user!.id, "inactive", ADMIN), () => changeUserStatus(user!.id, "active", ADMIN)],
        ["card switched off", () => editCard(card.id, { status: "inactive" }), () => editCard(card.id, { status: "active" })],
        ["permission removed", () => removeCardPermission(card.id, entrance.door.code), () => setCardPermission(card.id, entrance.door.code, true)],
      ];
      for (const [what, lose, regain] of losses) {
        expect(await lose(), what).toMatchObject({ ok: true });
        await opens(false);
        await listCarries(entrance.bridge, pass.qr, false);
        expect(await regain(), what).toMatchObject({ ok: true });
        await opens(true);
        await listCarries(entrance.bridge, pass.qr, true);
      }
    } finally {
      chain.clockOffsetMs = 0;
    }
  });

  it("follows the resident's access-group hours: the list's window is cut to them, and online it opens only inside them", async () => {
    const entrance = await chain.door("Portal H", { entrance: true });
    const hours = (to: string) => [{ days: [1, 2, 3, 4, 5, 6, 7], from: "08:00", to }];
    const group = await createAccessGroup({ name: `Residentes ${hexPrefix(3)}`, doors: [{ doorId: entrance.door.code, schedule: hours("12:00") }] });
    if (!group.ok) throw new Error(group.message);
    const { user } = await createTestCard(hexPrefix(4), [], { firstName: "Carlos" });
    expect(await addUserToGroup(user!.id, group.group._id)).toMatchObject({ ok: true });
    const created = await createVisitorPass(user!, { ...visit, doorIds: [entrance.door.code] });
    if (!created.ok) throw new Error(created.message);
    const { pass } = created;
    const window = (from: string, to: string) => [[at(from).toISOString(), at(to).toISOString()]];
    await eventually(() => JSON.stringify(listed(entrance.bridge, pass.qr)?.win) === JSON.stringify(window("09:00", "11:00")), "the pass's whole window");

    // The group's hours shrink to 08:00–10:00: the list follows within a second.
    expect(await updateAccessGroup(group.group._id, { doors: [{ doorId: entrance.door.code, schedule: hours("10:00") }] })).toMatchObject({ ok: true });
    await eventually(() => JSON.stringify(listed(entrance.bridge, pass.qr)?.win) === JSON.stringify(window("09:00", "10:00")), "the window cut to the group's hours", 1000);
    try {
      chain.clockOffsetMs = at("09:30").getTime() - Date.now();
      expect(await entrance.bridge.typePin(pass.pin)).toMatchObject({ granted: true });
      chain.clockOffsetMs = at("10:30").getTime() - Date.now();
      expect(await entrance.bridge.typePin(pass.pin)).toMatchObject({ granted: false, reason: "invalid_key" });
    } finally {
      chain.clockOffsetMs = 0;
    }
  });
});
