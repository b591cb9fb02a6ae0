export type StatTile = { label: string; value: number | string; tone?: "default" | "success" | "error" | "warning" };

export function StatTiles({ tiles, label }: { tiles: StatTile[]; label: string }) {
  return (
    // --tiles lets the CSS put a group on one row, or in even rows on a phone.
    <section aria-label={label} className="stat-tiles" data-count={tiles.length} style={{ ["--tiles" as string]: tiles.length }}>
      {tiles.map((tile) => (
        <div key={tile.label} className={`stat-tile stat-${tile.tone ?? "default"}`}>
          <span className="stat-value">{tile.value}</span>
          <span className="stat-label">{tile.label}</span>
        </div>
      ))}
    </section>
  );
}
