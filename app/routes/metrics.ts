import type { LoaderFunctionArgs } from "@remix-run/node";
import { readMetrics } from "~/services/metrics.server";
import { requireMetricsToken } from "~/utils/auth.server";

// Prometheus's scrape (docs/metrics.md): the web process's and the access
// service's series, for a scraper holding METRICS_TOKEN.
export async function loader({ request }: LoaderFunctionArgs) {
  requireMetricsToken(request);
  const { contentType, body } = await readMetrics();
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
}
