// The first admin, made at start when the database has none: its email is
// ADMIN_EMAIL (valid by default), so the admin can save their own profile.
import { afterEach, describe, expect, it } from "vitest";
import { countAdmins, getUserByUsername } from "~/models/user.server";
import { ProfileSchema } from "~/schemas/profile";
import { updateProfile } from "~/services/profile.server";
import { ensureAdmin } from "~/boot.server";
import { resetEnvForTests } from "~/utils/env.server";
import { auditEventsOf } from "../setup/audit";

afterEach(() => {
  delete process.env.ADMIN_USERNAME;
  delete process.env.ADMIN_EMAIL;
  resetEnvForTests();
});

describe("the first admin", () => {
  it("gets ADMIN_EMAIL, and can save their profile as it is", async () => {
    expect(await countAdmins()).toBe(0);
    process.env.ADMIN_USERNAME = "gerencia";
    process.env.ADMIN_EMAIL = "Gerencia@Casona.example";
    resetEnvForTests();
    await ensureAdmin();
    const admin = await getUserByUsername("gerencia");
    expect(admin).toMatchObject({ role: "admin", email: "gerencia@casona.example" });
    // Recorded in the audit trail, as the system.
    expect(await auditEventsOf(admin!.id)).toMatchObject([{ action: "user.create", actorRole: "sistema", summary: "sistema creó el primer administrador gerencia" }]);
    const profile = ProfileSchema.safeParse({ firstName: admin!.firstName, email: admin!.email });
    expect(profile.success).toBe(true);
    if (!profile.success) return;
    expect(await updateProfile(admin!, profile.data)).toMatchObject({ ok: true });
  });
});
