import * as mini from "zod/mini";
import { describe, expect, it } from "vitest";
import { LoginSchema } from "~/schemas/login";
import { parseOrFail } from "./api.server";
import { useSpanishValidationMessages } from "./validation-locale.server";

describe("zod's own messages", () => {
  it("are Spanish once boot has set them, for form schemas (zod/mini) and the API alike", async () => {
    useSpanishValidationMessages();
    expect(mini.string().safeParse(5).error?.issues[0]?.message).toBe("Entrada inválida: se esperaba texto, recibido número");
    const tooLong = LoginSchema.safeParse({ username: "ana", password: "x", redirectTo: `/${"a".repeat(600)}` });
    expect(tooLong.error?.issues[0]?.message).toBe("Demasiado grande: se esperaba que texto tuviera <=500 caracteres");
    let refusal: unknown;
    try {
      parseOrFail(mini.object({ nombre: mini.string() }), { nombre: 7 });
    } catch (error) {
      refusal = error;
    }
    expect(await (refusal as Response).json()).toEqual({ success: false, error: { message: "Entrada inválida: se esperaba texto, recibido número" } });
  });
});
