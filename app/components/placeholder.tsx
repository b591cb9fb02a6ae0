/** A page whose capability is still being built: the route and its guard exist. */
export function PagePlaceholder({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <section>
      <h1>{title}</h1>
      <p className="muted">{children ?? "Esta sección estará disponible próximamente."}</p>
    </section>
  );
}
