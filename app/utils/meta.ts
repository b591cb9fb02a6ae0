// Page titles: every page is "<page> · <building name>" (BUILDING_NAME, from
// the root loader). Browser-safe.
import type { MetaDescriptor, MetaFunction } from "@remix-run/node";

export const DEFAULT_BUILDING_NAME = "La Casona Coliving";

type RootData = { buildingName?: string } | undefined;

/** The route's `meta`: its title, and a description when given. */
export function pageMeta(page: string, description?: string): MetaFunction {
  return ({ matches }) => {
    const root = matches.find((match) => match.id === "root")?.data as RootData;
    const tags: MetaDescriptor[] = [{ title: `${page} · ${root?.buildingName ?? DEFAULT_BUILDING_NAME}` }];
    if (description) tags.push({ name: "description", content: description });
    return tags;
  };
}
