// What the users screen and API do to the doors, through the real access
// service on its embedded broker and a FakeBridge playing the door: a user
// who is not active (or deleted) is refused at the next swipe and leaves the
// door's next offline list; activating restores both; unassigned cards stop
// working; expiries reach the offline list; a holder is greeted by first name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CredentialsMessage } from "~/doors/contract";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { getAccessLog } from "~/models/access-log.server";
import { getCardByNumber } from "~/models/card.server";
import { setCardPermission } from "~/services/cards.server";
import { assignCard, changeUserStatus, deleteUser, editUserCard, unassignUserCard } from "~/services/users.server";
import { sha256 } from "~/utils/crypto.server";
import { addDays, endOfMadridDay, todayInMadrid } from "~/utils/dates";
import { FakeBridge } from "../setup/access";
import { createTestCard, createTestDoorWithBridge, createTestUser, hexPrefix } from "../setup/fixtures";

let service: AccessServiceHandle;
let door: Awaited<ReturnType<typeof createTestDoorWithBridge>>;
let bridge: FakeBridge;
let admin: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  admin = await createTestUser({ role: "admin" });
  door = await createTestDoorWithBridge("users-door", "Portal");
  // The service's default debounce of the offline lists (250 ms), as in production.
  service = await startAccessService({ host: "127.0.0.1", port: 0, refreshIntervalMs: 60_000 });
  useAccessNotifier(service.notifier);
  bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${service.mqttPort}`, "users-door", door.password);
});

afterAll(async () => {
  await bridge?.end();
  await service?.stop();
});

const entryOf = (list: CredentialsMessage, cardNumber: string) => list.cards.find((entry) => entry.h === sha256(`${list.salt}${cardNumber}`));

/** The first offline list published after `since` (a count of received messages) that satisfies the predicate. */
async function nextList(since: number, predicate: (list: CredentialsMessage) => boolean) {
  const message = await bridge.waitFor((m) => m.topic === bridge.topic("credentials") && predicate(m.json as CredentialsMessage), { since });
  return message.json as CredentialsMessage;
}

const number = () => `${hexPrefix()}${hexPrefix()}`;

describe("a user's status", () => {
  it("inactive: the next swipe is refused and the card leaves the next offline list; active again restores both", async () => {
    const cardNumber = number();
    const { user } = await createTestCard(cardNumber, [door.door.id], { firstName: "Covadonga" });
    const granted = await bridge.swipe(cardNumber);
    expect(granted).toMatchObject({ granted: true, display: { line1: "Hola, Covadonga" } });
    const before = await nextList(0, (list) => Boolean(entryOf(list, cardNumber)));

    let since = bridge.received.length;
    const inactivated = await changeUserStatus(user!.id, "inactive", admin);
    expect(inactivated.ok).toBe(true);
    const without = await nextList(since, (list) => !entryOf(list, cardNumber));
    expect(without.version).toBeGreaterThan(before.version);
    const refused = await bridge.swipe(cardNumber);
    expect(refused).toMatchObject({ granted: false, reason: "user_inactive", display: { line1: "Acceso denegado", line2: "Usuario inactivo" } });
    expect(await getAccessLog(refused.id)).toMatchObject({ reason: "user_inactive", username: user!.username, accessGranted: false });

    await changeUserStatus(user!.id, "suspended", admin);
    expect(await bridge.swipe(cardNumber)).toMatchObject({ reason: "user_suspended", display: { line2: "Usuario suspend." } });

    since = bridge.received.length;
    await changeUserStatus(user!.id, "active", admin);
    await nextList(since, (list) => Boolean(entryOf(list, cardNumber)));
    expect((await bridge.swipe(cardNumber)).granted).toBe(true);
  });

  it("an admin is not inactivated, so their card keeps working", async () => {
    const cardNumber = number();
    const otherAdmin = await createTestUser({ role: "admin", firstName: "Javier" });
    await assignCard(otherAdmin.id, { cardNumber, cardType: "primary", expiresAt: undefined });
    await setCardPermission((await getCardByNumber(cardNumber))!.id, door.door.id, true);
    expect(await changeUserStatus(otherAdmin.id, "inactive", admin)).toMatchObject({ ok: false, message: "No se puede inactivar a un administrador" });
    expect(await bridge.swipe(cardNumber)).toMatchObject({ granted: true, display: { line1: "Hola, Javier" } });
  });
});

describe("deleting a user", () => {
  it("releases their cards (unassigned, inactive): refused at the door and gone from its offline list; the log keeps the username", async () => {
    const cardNumber = number();
    const { user } = await createTestCard(cardNumber, [door.door.id]);
    const earlier = await bridge.swipe(cardNumber);
    expect(earlier.granted).toBe(true);
    await nextList(0, (list) => Boolean(entryOf(list, cardNumber)));

    const since = bridge.received.length;
    const deleted = await deleteUser(user!.id, admin);
    expect(deleted).toMatchObject({ ok: true, releasedCards: [cardNumber] });
    await nextList(since, (list) => !entryOf(list, cardNumber));
    expect(await bridge.swipe(cardNumber)).toMatchObject({ granted: false, reason: "card_inactive" });
    expect(await getCardByNumber(cardNumber)).toMatchObject({ userId: null, status: "inactive" });
    expect(await getAccessLog(earlier.id)).toMatchObject({ userId: null, username: user!.username, accessGranted: true });
  });
});

describe("a user's cards", () => {
  it("unassigned: refused and off the list; given to someone else: works for them, greeted by first name", async () => {
    const cardNumber = number();
    const { user, card } = await createTestCard(cardNumber, [door.door.id]);
    await nextList(0, (list) => Boolean(entryOf(list, cardNumber)));

    let since = bridge.received.length;
    expect((await unassignUserCard(user!.id, card.id)).ok).toBe(true);
    await nextList(since, (list) => !entryOf(list, cardNumber));
    expect((await bridge.swipe(cardNumber)).reason).toBe("card_inactive");

    const lucia = await createTestUser({ firstName: "Lucía" });
    since = bridge.received.length;
    const assigned = await assignCard(lucia.id, { cardNumber, cardType: "primary", expiresAt: undefined });
    expect(assigned).toMatchObject({ ok: true, reassigned: false });
    await nextList(since, (list) => Boolean(entryOf(list, cardNumber)));
    expect(await bridge.swipe(cardNumber)).toMatchObject({ granted: true, display: { line1: "Hola, Lucía" } });
  });

  it("an expiry set for a card reaches the offline list; a card past its expiry is refused with its own reason", async () => {
    const cardNumber = number();
    const { user, card } = await createTestCard(cardNumber, [door.door.id]);
    const day = addDays(todayInMadrid(), 3);
    const since = bridge.received.length;
    await editUserCard(user!.id, card.id, { cardType: "temporary", expiresAt: day });
    const list = await nextList(since, (l) => entryOf(l, cardNumber)?.exp === endOfMadridDay(day).toISOString());
    expect(entryOf(list, cardNumber)?.exp).toBe(endOfMadridDay(day).toISOString());

    const expired = number();
    await createTestCard(expired, [door.door.id], { expiresAt: new Date(Date.now() - 1000) });
    expect(await bridge.swipe(expired)).toMatchObject({ granted: false, reason: "card_expired", display: { line2: "Tarjeta expirada" } });
  });
});
