// Access groups: their rows, their doors with timetables, their members, and
// what the access service reads of them (the whole group → door → timetable
// index it keeps in memory, and a door's group-granted cards for its offline
// list). Door ids here are row ids.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { accessGroupDoors, accessGroups, doors, userAccessGroups, type AccessGroup, type WeeklySchedule } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, type Database } from "~/utils/db.server";

export type { AccessGroup };

export type AccessGroupDoor = { doorId: string; doorCode: string; doorName: string; schedule: WeeklySchedule };
export type AccessGroupWithDoors = AccessGroup & { doors: AccessGroupDoor[]; memberCount: number };

const groupDoorColumns = { groupId: accessGroupDoors.groupId, doorId: doors.id, doorCode: doors.code, doorName: doors.name, schedule: accessGroupDoors.schedule };
const memberCountColumns = { groupId: userAccessGroups.groupId, count: sql<number>`count(*)`.mapWith(Number) };
type GroupDoorRow = AccessGroupDoor & { groupId: string };

function withDoorsAndMembers(groups: AccessGroup[], doorRows: GroupDoorRow[], members: { groupId: string; count: number }[]): AccessGroupWithDoors[] {
  const memberCounts = new Map(members.map((row) => [row.groupId, row.count]));
  return groups.map((group) => ({
    ...group,
    doors: doorRows.filter((row) => row.groupId === group.id).map(({ groupId: _group, ...door }) => door),
    memberCount: memberCounts.get(group.id) ?? 0,
  }));
}

/** The groups' doors, by name: every group's (the list) or one group's. */
function selectGroupDoors(db: Database, groupId?: string) {
  return db
    .select(groupDoorColumns)
    .from(accessGroupDoors)
    .innerJoin(doors, eq(doors.id, accessGroupDoors.doorId))
    .where(groupId === undefined ? undefined : eq(accessGroupDoors.groupId, groupId))
    .orderBy(asc(doors.name));
}

export async function listAccessGroups(): Promise<AccessGroupWithDoors[]> {
  const db = getDb();
  const [groups, doorRows, members] = await Promise.all([
    db.select().from(accessGroups).orderBy(asc(sql`lower(${accessGroups.name})`)),
    selectGroupDoors(db),
    db.select(memberCountColumns).from(userAccessGroups).groupBy(userAccessGroups.groupId),
  ]);
  return withDoorsAndMembers(groups, doorRows, members);
}

export async function getAccessGroup(id: string): Promise<AccessGroupWithDoors | null> {
  const db = getDb();
  const [group] = await db.select().from(accessGroups).where(eq(accessGroups.id, id)).limit(1);
  if (!group) return null;
  const doorRows = await selectGroupDoors(db, id);
  const members = await db.select(memberCountColumns).from(userAccessGroups).where(eq(userAccessGroups.groupId, id)).groupBy(userAccessGroups.groupId);
  return withDoorsAndMembers([group], doorRows, members)[0] ?? null;
}

/** The ids of these groups that exist. */
export async function existingGroupIds(ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await getDb().select({ id: accessGroups.id }).from(accessGroups).where(inArray(accessGroups.id, ids));
  return rows.map((row) => row.id);
}

export type GroupDoorInput = { doorId: string; schedule: WeeklySchedule };

async function replaceDoors(tx: Pick<Database, "delete" | "insert">, groupId: string, groupDoors: GroupDoorInput[]) {
  await tx.delete(accessGroupDoors).where(eq(accessGroupDoors.groupId, groupId));
  if (groupDoors.length > 0) await tx.insert(accessGroupDoors).values(groupDoors.map((door) => ({ groupId, ...door })));
}

/** A name already taken throws a unique violation on access_groups_name_unique. */
export async function insertAccessGroup(name: string, groupDoors: GroupDoorInput[]) {
  const id = createId();
  await getDb().transaction(async (tx) => {
    await tx.insert(accessGroups).values({ id, name });
    await replaceDoors(tx, id, groupDoors);
  });
  return id;
}

/** False when there is no such group. `doors` undefined keeps them. */
export async function updateAccessGroup(id: string, fields: { name?: string; doors?: GroupDoorInput[] }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(accessGroups)
      .set({ ...(fields.name !== undefined ? { name: fields.name } : {}), updatedAt: new Date() })
      .where(eq(accessGroups.id, id))
      .returning({ id: accessGroups.id });
    if (!row) return false;
    if (fields.doors) await replaceDoors(tx, id, fields.doors);
    return true;
  });
}

export async function deleteAccessGroup(id: string) {
  const rows = await getDb().delete(accessGroups).where(eq(accessGroups.id, id)).returning({ id: accessGroups.id });
  return rows.length > 0;
}

/** Each user's group ids (users without groups are left out). */
export async function listGroupIdsOfUsers(userIds: string[]): Promise<Map<string, string[]>> {
  const byUser = new Map<string, string[]>();
  if (userIds.length === 0) return byUser;
  const rows = await getDb()
    .select({ userId: userAccessGroups.userId, groupId: userAccessGroups.groupId })
    .from(userAccessGroups)
    .innerJoin(accessGroups, eq(accessGroups.id, userAccessGroups.groupId))
    .where(inArray(userAccessGroups.userId, userIds))
    .orderBy(asc(sql`lower(${accessGroups.name})`));
  for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row.groupId]);
  return byUser;
}

/** The user's groups become exactly these (existing group ids). */
export async function setGroupsOfUser(userId: string, groupIds: string[]) {
  await getDb().transaction(async (tx) => {
    await tx.delete(userAccessGroups).where(eq(userAccessGroups.userId, userId));
    if (groupIds.length > 0) await tx.insert(userAccessGroups).values([...new Set(groupIds)].map((groupId) => ({ userId, groupId })));
  });
}

/** Adds the user to one group (kept if already in it). */
export async function addUserToGroup(userId: string, groupId: string) {
  await getDb().insert(userAccessGroups).values({ userId, groupId }).onConflictDoNothing();
}

/** Group id → door row id → timetable: what the access service keeps in memory to decide. */
export type AccessGroupIndex = Map<string, Map<string, WeeklySchedule>>;

export async function readAccessGroupIndex(executor: Pick<Database, "select"> = getDb()): Promise<AccessGroupIndex> {
  const rows = await executor
    .select({ groupId: accessGroupDoors.groupId, doorId: accessGroupDoors.doorId, schedule: accessGroupDoors.schedule })
    .from(accessGroupDoors);
  const index: AccessGroupIndex = new Map();
  for (const row of rows) {
    const doorsOfGroup = index.get(row.groupId) ?? new Map<string, WeeklySchedule>();
    doorsOfGroup.set(row.doorId, row.schedule);
    index.set(row.groupId, doorsOfGroup);
  }
  return index;
}

/**
 * The cards a door's groups let in (the door's own status aside): active, not
 * expired, held by an active member of a group with this door, without an
 * explicit denial on the door; with each group's timetable.
 */
export async function listGroupCardsForDoor(doorId: string, now = new Date()) {
  // CROSS JOIN keeps SQLite's join order as written: from the door's groups to
  // their members and their cards. Left to itself (no statistics), it started
  // from every active card and took ~3.6 ms a door on 5,000 cards with no group
  // at all, on each minute's sweep of the access process.
  const rows = await getDb().all<{ cardNumber: string; expiresAt: number | null; schedule: string }>(sql`
    SELECT c.card_number AS cardNumber, c.expires_at AS expiresAt, gd.schedule AS schedule
    FROM access_group_doors gd
    CROSS JOIN user_access_groups ug ON ug.group_id = gd.group_id
    CROSS JOIN users u ON u.id = ug.user_id AND u.status = 'active'
    CROSS JOIN cards c ON c.user_id = u.id AND c.status = 'active' AND (c.expires_at IS NULL OR c.expires_at > ${now.getTime()})
    WHERE gd.door_id = ${doorId}
      AND NOT EXISTS (SELECT 1 FROM card_permissions p WHERE p.card_id = c.id AND p.door_id = gd.door_id AND p.granted = 0)
    ORDER BY c.card_number`);
  return rows.map((row) => ({
    cardNumber: row.cardNumber,
    expiresAt: row.expiresAt === null ? null : new Date(Number(row.expiresAt)),
    schedule: JSON.parse(row.schedule) as WeeklySchedule,
  }));
}

/** Door row ids of these groups. */
export async function listDoorIdsOfGroups(groupIds: string[]) {
  if (groupIds.length === 0) return [];
  const rows = await getDb()
    .selectDistinct({ doorId: accessGroupDoors.doorId })
    .from(accessGroupDoors)
    .where(inArray(accessGroupDoors.groupId, groupIds));
  return rows.map((row) => row.doorId);
}

/** The doors (with timetables) that a user's groups open, by door name. */
export async function listGroupDoorsOfUser(userId: string) {
  return getDb()
    .select({ groupId: accessGroups.id, groupName: accessGroups.name, doorId: doors.id, doorCode: doors.code, doorName: doors.name, schedule: accessGroupDoors.schedule })
    .from(userAccessGroups)
    .innerJoin(accessGroups, eq(accessGroups.id, userAccessGroups.groupId))
    .innerJoin(accessGroupDoors, eq(accessGroupDoors.groupId, accessGroups.id))
    .innerJoin(doors, eq(doors.id, accessGroupDoors.doorId))
    .where(and(eq(userAccessGroups.userId, userId)))
    .orderBy(asc(doors.name));
}
