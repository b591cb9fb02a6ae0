// /admin/grupos: the access groups with their doors and timetables, the
// create, edit and delete modals (?modal=new|edit|delete&group=<id>) and the
// default group of new residents, through app/services/access-groups.server.ts.
// The group form sends the name, `door` once per door ticked and a
// `schedule-<doorId>` text per door ("L-V 08:00-20:00; S 10:00-14:00", empty:
// always). The building's holidays are listed below the groups, with a form
// to add one (intent create-holiday) and a button to delete each (delete-holiday).
import { parseWithZod } from "@conform-to/zod/v4";
import { AccessGroupFormSchema, parseScheduleText, SCHEDULE_TEXT_MESSAGE } from "~/schemas/access-group";
import { HolidaySchema } from "~/schemas/holiday";
import * as groups from "~/services/access-groups.server";
import * as holidays from "~/services/holidays.server";
import { listDoorOptions } from "~/services/doors.server";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { refuse, throwRefusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const GROUP_MODALS = ["new", "edit", "delete"] as const;

export async function loadGroupsPage(request: Request) {
  const url = new URL(request.url);
  const [list, doors, settings, holidayList] = await Promise.all([
    groups.listAccessGroups(),
    listDoorOptions(),
    groups.getAccessSettings(),
    holidays.listHolidays(),
  ]);
  const modal = modalOf(url.searchParams, GROUP_MODALS);
  const groupId = url.searchParams.get("group");
  const group = modal && modal !== "new" ? (list.find((candidate) => candidate._id === groupId) ?? null) : null;
  return { groups: list, doors, holidays: holidayList, defaultGroupId: settings.defaultAccessGroupId, modal: { name: modal, group } };
}

const intentToastTitle = { "create-group": "Error al crear", "update-group": "Error al actualizar" } as const;

export async function groupsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const list = pageUrl(request, { modal: null, group: null });
  switch (intent) {
    case "create-group":
    case "update-group": {
      const toastTitle = intentToastTitle[intent];
      const submission = parseWithZod(formData, { schema: AccessGroupFormSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle });
      const doorIds = submission.value.door;
      const doors = [];
      for (const doorId of doorIds) {
        const text = String(formData.get(`schedule-${doorId}`) ?? "");
        const schedule = parseScheduleText(text);
        if (schedule === null) return refusedForm(refuse(400, `Horario «${text}»: ${SCHEDULE_TEXT_MESSAGE}`), { intent, submission, toastTitle });
        doors.push({ doorId, schedule });
      }
      const input = { name: submission.value.name, doors };
      const saved = intent === "create-group" ? await groups.createAccessGroup(input) : await groups.updateAccessGroup(String(formData.get("id") ?? ""), input);
      if (!saved.ok) return refusedForm(saved, { intent, submission, toastTitle });
      return redirectWithToast(list, successToast(intent === "create-group" ? "Grupo creado" : "Grupo actualizado", saved.group.name));
    }
    case "delete-group": {
      const deleted = await groups.deleteAccessGroup(String(formData.get("id") ?? ""));
      if (!deleted.ok) return refusedForm(deleted, { intent, toastTitle: "Error al eliminar" });
      return redirectWithToast(list, successToast("Grupo eliminado", deleted.group.name));
    }
    case "set-default": {
      const saved = await groups.updateAccessSettings({ defaultAccessGroupId: String(formData.get("defaultAccessGroupId") ?? "") || null });
      if (!saved.ok) return refusedForm(saved, { intent, toastTitle: "Error al guardar" });
      return redirectWithToast(list, successToast("Grupo por defecto guardado"));
    }
    case "create-holiday": {
      const submission = parseWithZod(formData, { schema: HolidaySchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle: "Error al añadir el festivo" });
      const saved = await holidays.createHoliday(submission.value);
      if (!saved.ok) return refusedForm(saved, { intent, submission, toastTitle: "Error al añadir el festivo" });
      return redirectWithToast(list, successToast("Festivo añadido", `${saved.holiday.day} ${saved.holiday.name}`));
    }
    case "delete-holiday": {
      const deleted = await holidays.deleteHoliday(String(formData.get("id") ?? ""));
      if (!deleted.ok) return refusedForm(deleted, { intent, toastTitle: "Error al eliminar" });
      return redirectWithToast(list, successToast("Festivo eliminado", `${deleted.holiday.day} ${deleted.holiday.name}`));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
