// The reads behind a door's offline list run for every door on each minute's
// sweep of the access process, on the thread that answers the doors: each must
// start from the door's own rows, whatever the number of cards.
import { describe, expect, it } from "vitest";
import { listGroupCardsForDoor } from "~/models/access-group.server";
import { listGrantedCardsForDoor } from "~/models/card.server";
import { listKeysForDoor } from "~/models/door-key.server";
import { createTestDoor } from "../setup/fixtures";
import { plansOf } from "../setup/query-plans";

async function firstSearches(run: () => Promise<unknown>) {
  const plans = await plansOf(run);
  expect(plans).toHaveLength(1);
  return plans[0].lines.filter((line) => line.parent === 0).map((line) => line.detail);
}

describe("a door's offline list", () => {
  it("reads its groups' cards from the door's groups, then their members and their cards, never every active card", async () => {
    const door = await createTestDoor();
    const lines = await firstSearches(() => listGroupCardsForDoor(door.id));
    expect(lines[0]).toMatch(/^SEARCH gd USING INDEX access_group_doors_door_idx \(door_id=\?\)/);
    expect(lines.join(" | ")).toMatch(/SEARCH c USING INDEX cards_user_idx \(user_id=\?\)/);
    expect(lines.join(" | ")).not.toContain("cards_status_idx");
  });

  it("reads its own permissions from the door's permissions", async () => {
    const door = await createTestDoor();
    const lines = await firstSearches(() => listGrantedCardsForDoor(door.id));
    expect(lines[0]).toMatch(/USING INDEX card_permissions_door_idx \(door_id=\?\)/);
  });

  it("reads its keys from the keys valid now", async () => {
    const door = await createTestDoor();
    const lines = await firstSearches(() => listKeysForDoor(door.id, { from: Date.now(), to: Date.now() + 86_400_000 }));
    expect(lines[0]).toMatch(/USING INDEX door_keys_status_idx \(status=\? AND valid_until>\?\)/);
  });
});
