// The building's holidays: the form in /admin/grupos and POST /api/holidays
// (docs/api.md, "Holidays"). Browser-safe.
import * as z from "zod/mini";
import { isoDay, requiredText } from "./fields";

export const HolidaySchema = z.object({
  day: isoDay("La fecha no es válida (AAAA-MM-DD)"),
  name: requiredText("El nombre es requerido", 80),
});
export type HolidayInput = z.output<typeof HolidaySchema>;
