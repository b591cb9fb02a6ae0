import { Link, useLocation } from "@remix-run/react";

/**
 * Anterior/Siguiente links that keep the current filters; shown only with
 * more than one page unless `always` (a single page then shows "Página 1 de 1").
 * With `pagesMoreThan` the count stopped at a bound: "Página X de más de Y",
 * and Siguiente is offered while the page is full (`full`).
 */
export function Pagination({
  page,
  pages,
  always = false,
  pagesMoreThan = false,
  full = false,
}: {
  page: number;
  pages: number;
  always?: boolean;
  pagesMoreThan?: boolean;
  full?: boolean;
}) {
  const location = useLocation();
  if (pages <= 1 && !always) return null;
  const hrefFor = (target: number) => {
    const params = new URLSearchParams(location.search);
    params.set("page", String(target));
    return `${location.pathname}?${params}`;
  };
  return (
    <nav aria-label="Paginación" className="pagination">
      {page > 1 ? (
        <Link to={hrefFor(page - 1)} className="button button-secondary button-small" preventScrollReset>
          Anterior
        </Link>
      ) : (
        <span className="button button-secondary button-small" aria-disabled="true">
          Anterior
        </span>
      )}
      <span>
        {pagesMoreThan ? `Página ${page} de más de ${pages}` : `Página ${page} de ${pages}`}
      </span>
      {page < pages || (pagesMoreThan && full) ? (
        <Link to={hrefFor(page + 1)} className="button button-secondary button-small" preventScrollReset>
          Siguiente
        </Link>
      ) : (
        <span className="button button-secondary button-small" aria-disabled="true">
          Siguiente
        </span>
      )}
    </nav>
  );
}
