// The JavaScript a browser downloads for a page: every same-origin `.js` file
// its HTML names in a `<script src>` or a `<link rel="modulepreload" href>`.
// Matches the classic compiler's /build/… files and a Vite build's
// /assets/… alike. Sizes are as sent with gzip (level 9, as a CDN would).
import zlib from "node:zlib";

/** The same-origin .js URLs (pathname + search) that `html`, served at pageUrl, references. */
export function referencedScripts(html, pageUrl) {
  const origin = new URL(pageUrl).origin;
  const attribute = (tag, name) => new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag)?.slice(1).find((v) => v !== undefined);
  const urls = new Set();
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attribute(tag, "src");
    if (src) urls.add(src);
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = attribute(tag, "rel") ?? "";
    const href = attribute(tag, "href");
    if (href && rel.toLowerCase().split(/\s+/).includes("modulepreload")) urls.add(href);
  }
  const scripts = new Set();
  for (const url of urls) {
    const resolved = new URL(url.replaceAll("&amp;", "&"), pageUrl);
    if (resolved.origin === origin && resolved.pathname.endsWith(".js")) scripts.add(resolved.pathname + resolved.search);
  }
  return [...scripts];
}

/**
 * For each page path: { path, status, files, rawKB, gzipKB } of the JS its
 * HTML references (GET with `cookie` when given; a redirect is reported by
 * its status, with no files). Each file is fetched once for all pages.
 */
export async function pageJsSizes(baseUrl, paths, cookie) {
  const headers = cookie ? { Cookie: cookie } : {};
  const sizes = new Map(); // script path → Promise<{ raw, gzip }>
  const sizeOf = (script) => {
    if (!sizes.has(script)) {
      sizes.set(
        script,
        fetch(new URL(script, baseUrl)).then(async (response) => {
          if (!response.ok) throw new Error(`${script}: ${response.status}`);
          const body = Buffer.from(await response.arrayBuffer());
          return { raw: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length };
        }),
      );
    }
    return sizes.get(script);
  };
  const results = [];
  for (const path of paths) {
    const pageUrl = new URL(path, baseUrl).href;
    const response = await fetch(pageUrl, { headers, redirect: "manual" });
    const html = response.ok ? await response.text() : "";
    const scripts = referencedScripts(html, pageUrl);
    const files = await Promise.all(scripts.map(sizeOf));
    const kb = (bytes) => Math.round((bytes / 1024) * 10) / 10;
    results.push({
      path,
      status: response.status,
      files: files.length,
      rawKB: kb(files.reduce((sum, f) => sum + f.raw, 0)),
      gzipKB: kb(files.reduce((sum, f) => sum + f.gzip, 0)),
    });
  }
  return results;
}

/**
 * The JavaScript budget of a page, in gzip KB (issue 16): the home page and
 * other pages without a form 90, every public form page 120, the signed-in
 * pages (admin panel, residents' portal) 160. The test suite checks every
 * page against it (tests/e2e/js-budget.spec.ts); bench:web prints it.
 */
export function jsBudgetKB(pagePath) {
  if (pagePath === "/admin" || pagePath.startsWith("/admin/") || pagePath === "/portal") return 160;
  if (["/", "/privacidad"].includes(pagePath)) return 90;
  return 120;
}
