import type { HourlyActivity } from "~/services/doors.server";
import { formatHour } from "~/utils/dates";

const WIDTH = 720;
const HEIGHT = 180;
const PADDING = { top: 10, right: 8, bottom: 24, left: 32 };

/** Attempts per hour over the last 24 hours, granted stacked under denied. Server-rendered SVG. */
export function ActivityChart({ hours }: { hours: HourlyActivity[] }) {
  const max = Math.max(1, ...hours.map((h) => h.granted + h.denied));
  const plotWidth = WIDTH - PADDING.left - PADDING.right;
  const plotHeight = HEIGHT - PADDING.top - PADDING.bottom;
  const barWidth = plotWidth / Math.max(1, hours.length);
  const y = (value: number) => (value / max) * plotHeight;
  const totalGranted = hours.reduce((sum, h) => sum + h.granted, 0);
  const totalDenied = hours.reduce((sum, h) => sum + h.denied, 0);
  return (
    <figure style={{ margin: 0 }}>
      <svg
        className="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Actividad de las últimas 24 horas: ${totalGranted} accesos concedidos y ${totalDenied} denegados`}
      >
        <line x1={PADDING.left} x2={WIDTH - PADDING.right} y1={HEIGHT - PADDING.bottom} y2={HEIGHT - PADDING.bottom} stroke="var(--color-border)" />
        <text x={PADDING.left - 6} y={PADDING.top + 8} textAnchor="end" fontSize="11" fill="var(--color-muted)" className="chart-label">
          {max}
        </text>
        {hours.map((hour, index) => {
          const x = PADDING.left + index * barWidth + 2;
          const grantedHeight = y(hour.granted);
          const deniedHeight = y(hour.denied);
          const base = HEIGHT - PADDING.bottom;
          return (
            <g key={hour.hourStart}>
              <title>{`${formatHour(hour.hourStart)} h: ${hour.granted} concedidos, ${hour.denied} denegados`}</title>
              <rect x={x} width={barWidth - 4} y={base - grantedHeight} height={grantedHeight} fill="var(--color-success)" />
              <rect x={x} width={barWidth - 4} y={base - grantedHeight - deniedHeight} height={deniedHeight} fill="var(--color-error)" />
              {index % 3 === 0 ? (
                // Every 3rd hour is labelled; on a phone only every 6th, larger (CSS).
                <text
                  x={x + (barWidth - 4) / 2}
                  y={HEIGHT - 8}
                  textAnchor="middle"
                  fontSize="11"
                  fill="var(--color-muted)"
                  className={index % 6 === 0 ? "chart-label" : "chart-label chart-label-minor"}
                >
                  {formatHour(hour.hourStart)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">
        <span style={{ color: "var(--color-success)" }}>■</span> Concedidos ({totalGranted}){" "}
        <span style={{ color: "var(--color-error)" }}>■</span> Denegados ({totalDenied})
      </figcaption>
    </figure>
  );
}
