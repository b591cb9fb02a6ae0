// Access groups as the admin manages them, shared by /admin/grupos and
// /api/access-groups: a name and doors, each with a weekly timetable; users
// belong to groups (users.server.ts sets a user's). Every change is announced
// to the access service with the groups' ids, so it reads the timetables
// again and republishes the offline lists of the doors they had or have.
// Also the building's setting of the group a new resident joins.
import { notifyAccessChange } from "~/access/notify.server";
import * as groupModel from "~/models/access-group.server";
import { findDoorByCodeOrId } from "~/models/door.server";
import { getSetting, setSetting } from "~/models/setting.server";
import type { AccessGroupInput, AccessGroupUpdateInput } from "~/schemas/access-group";
import { isUniqueViolation } from "~/utils/db.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";

export const GROUP_NOT_FOUND = "Grupo de acceso no encontrado";

export const GROUP_REFUSALS = {
  not_found: refuse(404, GROUP_NOT_FOUND),
  unknown_member_group: refuse(400, "Alguno de los grupos de acceso no existe", { field: "accessGroups" }),
  empty_update: refuse(400, "Indica al menos un campo que cambiar (name, doors)"),
};

const nameTaken = (name: string) => refuse(409, `Ya existe un grupo de acceso llamado «${name}»`, { field: "name" });
const unknownDoor = (doorId: string) => refuse(400, `La puerta «${doorId}» no existe`, { field: "doors" });

/** docs/api.md, "Access groups": doors named by their code. */
export function toAccessGroupJson(group: groupModel.AccessGroupWithDoors) {
  return {
    _id: group.id,
    name: group.name,
    doors: group.doors.map((door) => ({ doorId: door.doorCode, doorName: door.doorName, schedule: door.schedule })),
    memberCount: group.memberCount,
    createdAt: group.createdAt.toISOString(),
    updatedAt: group.updatedAt.toISOString(),
  };
}
export type AccessGroupJson = ReturnType<typeof toAccessGroupJson>;

export async function listAccessGroups() {
  return (await groupModel.listAccessGroups()).map(toAccessGroupJson);
}

export async function getAccessGroup(id: string): Promise<Result<{ group: AccessGroupJson }>> {
  const group = await groupModel.getAccessGroup(id);
  return group ? { ok: true, group: toAccessGroupJson(group) } : GROUP_REFUSALS.not_found;
}

/** The doors as row ids; a door listed twice keeps its last timetable. */
async function resolveDoors(doors: AccessGroupInput["doors"]): Promise<Result<{ doors: groupModel.GroupDoorInput[] }>> {
  const byId = new Map<string, groupModel.GroupDoorInput>();
  for (const entry of doors) {
    const door = await findDoorByCodeOrId(entry.doorId);
    if (!door) return unknownDoor(entry.doorId);
    byId.set(door.id, { doorId: door.id, schedule: entry.schedule });
  }
  return { ok: true, doors: [...byId.values()] };
}

export async function createAccessGroup(input: AccessGroupInput): Promise<Result<{ group: AccessGroupJson }>> {
  const doors = await resolveDoors(input.doors);
  if (!doors.ok) return doors;
  let id: string;
  try {
    id = await audited(async (audit) => {
      const created = await groupModel.insertAccessGroup(input.name, doors.doors);
      audit({ action: "access_group.create", entityType: "access_group", entityId: created, summary: `creó el grupo de acceso ${input.name}`, after: { name: input.name, doors: input.doors } });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error, "access_groups_name_unique")) return nameTaken(input.name);
    throw error;
  }
  await notifyAccessChange({ groupIds: [id] });
  return getAccessGroup(id);
}

/** Changes the fields given; `doors`, when given, replaces the group's doors. */
export async function updateAccessGroup(id: string, input: AccessGroupUpdateInput): Promise<Result<{ group: AccessGroupJson }>> {
  if (input.name === undefined && input.doors === undefined) return GROUP_REFUSALS.empty_update;
  let doors: groupModel.GroupDoorInput[] | undefined;
  if (input.doors) {
    const resolved = await resolveDoors(input.doors);
    if (!resolved.ok) return resolved;
    doors = resolved.doors;
  }
  let found: boolean;
  try {
    found = await audited(async (audit) => {
      const before = await groupModel.getAccessGroup(id);
      if (!before || !(await groupModel.updateAccessGroup(id, { name: input.name, doors }))) return false;
      audit({
        action: "access_group.update",
        entityType: "access_group",
        entityId: id,
        summary: `editó el grupo de acceso ${input.name ?? before.name}`,
        before: { name: before.name, doors: before.doors.map((door) => ({ doorId: door.doorCode, schedule: door.schedule })) },
        after: { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.doors ? { doors: input.doors } : {}) },
      });
      return true;
    });
  } catch (error) {
    if (input.name !== undefined && isUniqueViolation(error, "access_groups_name_unique")) return nameTaken(input.name);
    throw error;
  }
  if (!found) return GROUP_REFUSALS.not_found;
  await notifyAccessChange({ groupIds: [id] });
  return getAccessGroup(id);
}

/** Its members leave it; the doors it opened hear of it. A group that was the default one stops being it. */
export async function deleteAccessGroup(id: string): Promise<Result<{ group: AccessGroupJson }>> {
  const group = await groupModel.getAccessGroup(id);
  if (!group) return GROUP_REFUSALS.not_found;
  const deleted = await audited(async (audit) => {
    if (!(await groupModel.deleteAccessGroup(id))) return false;
    if ((await getSetting("defaultAccessGroupId")) === id) await setSetting("defaultAccessGroupId", null);
    audit({ action: "access_group.delete", entityType: "access_group", entityId: id, summary: `eliminó el grupo de acceso ${group.name}`, before: { name: group.name, members: group.memberCount } });
    return true;
  });
  if (!deleted) return GROUP_REFUSALS.not_found;
  await notifyAccessChange({ groupIds: [id] });
  return { ok: true, group: toAccessGroupJson(group) };
}

// ---- Members ----

/** Each user's group ids (for the users' JSON). */
export async function groupIdsOfUsers(userIds: string[]) {
  return groupModel.listGroupIdsOfUsers(userIds);
}

/** The user's groups become exactly these; the doors of the groups left and joined hear of it. */
export async function setGroupsOfUser(userId: string, groupIds: string[]): Promise<Result> {
  const wanted = [...new Set(groupIds)];
  const existing = await groupModel.existingGroupIds(wanted);
  if (existing.length !== wanted.length) return GROUP_REFUSALS.unknown_member_group;
  const before = (await groupModel.listGroupIdsOfUsers([userId])).get(userId) ?? [];
  if (before.length === wanted.length && before.every((id) => wanted.includes(id))) return { ok: true };
  await audited(async (audit) => {
    await groupModel.setGroupsOfUser(userId, wanted);
    audit({ action: "user.access_groups", entityType: "user", entityId: userId, summary: "cambió los grupos de acceso de un usuario", before: { accessGroups: before }, after: { accessGroups: wanted } });
  });
  await notifyAccessChange({ groupIds: [...new Set([...before, ...wanted])] });
  return { ok: true };
}

/** Adds the user to one group (the assign-card modal's offer). */
export async function addUserToGroup(userId: string, groupId: string): Promise<Result> {
  if ((await groupModel.existingGroupIds([groupId])).length === 0) return GROUP_REFUSALS.unknown_member_group;
  await audited(async (audit) => {
    await groupModel.addUserToGroup(userId, groupId);
    audit({ action: "user.access_groups", entityType: "user", entityId: userId, summary: "añadió un usuario a un grupo de acceso", after: { joined: groupId } });
  });
  await notifyAccessChange({ groupIds: [groupId] });
  return { ok: true };
}

/** The doors a user's groups open, each with its timetables (one per group): what a card given to them will open. */
export async function doorsOpenedByGroupsOf(userId: string) {
  const rows = await groupModel.listGroupDoorsOfUser(userId);
  const byDoor = new Map<string, { doorId: string; doorName: string; groups: { name: string; schedule: (typeof rows)[number]["schedule"] }[] }>();
  for (const row of rows) {
    const door = byDoor.get(row.doorId) ?? { doorId: row.doorCode, doorName: row.doorName, groups: [] };
    door.groups.push({ name: row.groupName, schedule: row.schedule });
    byDoor.set(row.doorId, door);
  }
  return [...byDoor.values()];
}

// ---- Settings ----

export async function getAccessSettings() {
  return { defaultAccessGroupId: await getSetting("defaultAccessGroupId") };
}

export async function updateAccessSettings(input: { defaultAccessGroupId?: string | null }): Promise<Result<{ settings: { defaultAccessGroupId: string | null } }>> {
  if (input.defaultAccessGroupId !== undefined) {
    const id = input.defaultAccessGroupId || null;
    if (id && (await groupModel.existingGroupIds([id])).length === 0) return refuse(400, GROUP_NOT_FOUND, { field: "defaultAccessGroupId" });
    await audited(async (audit) => {
      const before = await getSetting("defaultAccessGroupId");
      await setSetting("defaultAccessGroupId", id);
      audit({ action: "building.default_group", entityType: "building", entityId: null, summary: "cambió el grupo de acceso por defecto", before: { defaultAccessGroupId: before }, after: { defaultAccessGroupId: id } });
    });
  }
  return { ok: true, settings: await getAccessSettings() };
}

/** The group a new resident joins, if it still exists. */
export async function defaultGroupIds(): Promise<string[]> {
  const id = await getSetting("defaultAccessGroupId");
  return id ? groupModel.existingGroupIds([id]) : [];
}
