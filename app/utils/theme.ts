export const THEMES = ["default", "ocean", "forest", "sunset", "dark"] as const;
export type Theme = (typeof THEMES)[number];
/** "system" = no choice made yet: the browser's colour-scheme preference decides. */
export type ThemePreference = Theme | "system";

export const THEME_LABELS: Record<Theme, string> = {
  default: "Predeterminado",
  ocean: "Océano",
  forest: "Bosque",
  sunset: "Atardecer",
  dark: "Oscuro",
};

export function isTheme(value: unknown): value is Theme {
  return typeof value === "string" && (THEMES as readonly string[]).includes(value);
}
